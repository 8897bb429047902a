//! The cmdlets the PowerShell front end knows: their names and aliases, parameters and
//! effect, and how a parameter is found by its name, alias or prefix.

/// How a cmdlet's effect is written in POSIX terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Effect {
    /// `rm` (`-r` for `-Recurse`, `-f` for `-Force`).
    Remove,
    /// `cat` of the paths.
    Read,
    /// Formatting and selecting cmdlets: what comes in goes on (`cat`).
    Filter,
    /// `Clear-Content`: the files emptied.
    Truncate,
    /// `printf … > PATH`.
    SetContent,
    /// `printf … >> PATH`.
    AddContent,
    /// The pipeline's output (or `-InputObject`) into the file.
    OutFile,
    /// `tee`.
    Tee,
    /// `cp`.
    Copy,
    /// `mv`.
    Move,
    /// `curl` (see `web`).
    Web,
    /// `Start-BitsTransfer`: a download (`-TransferType Upload`: an upload).
    Bits,
    /// `Invoke-Expression`: code run (see `Writer::expression`).
    Expression,
    /// `Start-Process`: the program run with its arguments.
    StartProcess,
    /// `cd`.
    ChangeDir,
    /// Runs its script blocks (written out as code) and nothing else.
    RunBlocks,
    /// `ls` (`-R` for `-Recurse`; `env` for the `Env:` drive).
    List,
    /// `grep -e PATTERN`.
    Search,
    /// `zip -r DEST PATHS`.
    Compress,
    /// `unzip -o ARCHIVE -d DEST`.
    Expand,
    /// `mkdir`, `ln -s`, `touch` or a write, by `-ItemType`.
    NewItem,
    /// A scheduled task or service installed: `crontab -`.
    Schedule,
    /// A registry value set, removed or cleared: a Run key's is a scheduled task, others pass
    /// through.
    SetProperty,
    /// `Rename-Item PATH NEWNAME`: `mv` within the item's directory.
    Rename,
    /// `Set-ExecutionPolicy`: a lax policy (`Bypass`, `Unrestricted`) kept in a scope's
    /// `powershell.config.json` is a write of that file.
    ExecutionPolicy,
}

/// A cmdlet: its names (the full name first, then aliases), parameters and positional order.
pub(super) struct Cmdlet {
    pub(super) names: &'static [&'static str],
    pub(super) switches: &'static [&'static str],
    pub(super) values: &'static [&'static str],
    pub(super) positional: &'static [&'static str],
    pub(super) effect: Effect,
}

/// Parameters every cmdlet takes.
const COMMON_SWITCHES: &[&str] = &["Verbose", "Debug", "WhatIf", "Confirm"];
/// Parameters with a value every cmdlet takes.
const COMMON_VALUES: &[&str] = &[
    "ErrorAction",
    "WarningAction",
    "InformationAction",
    "ErrorVariable",
    "WarningVariable",
    "InformationVariable",
    "OutVariable",
    "OutBuffer",
    "PipelineVariable",
];

/// The valued parameters of `Remove-Item` and `Clear-Content` (the same for both).
const ITEM_VALUES: &[&str] = &[
    "Path",
    "LiteralPath",
    "Filter",
    "Include",
    "Exclude",
    "Stream",
    "Credential",
];

/// `Set-Content`'s and `Add-Content`'s switches and valued parameters (the same for both).
const CONTENT_SWITCHES: &[&str] = &["NoNewline", "Force", "PassThru", "AsByteStream"];
/// See [`CONTENT_SWITCHES`].
const CONTENT_VALUES: &[&str] = &[
    "Path",
    "Value",
    "LiteralPath",
    "Encoding",
    "Stream",
    "Filter",
    "Include",
    "Exclude",
];

/// The cmdlets whose effect is written out; a parameter prefix matching several names is
/// read as the first (PowerShell refuses it; the stricter reading is kept).
pub(super) const CMDLETS: &[Cmdlet] = &[
    Cmdlet {
        names: &["remove-item", "rm", "ri", "del", "erase", "rd", "rmdir"],
        switches: &["Recurse", "Force"],
        values: ITEM_VALUES,
        positional: &["Path"],
        effect: Effect::Remove,
    },
    Cmdlet {
        names: &[
            "set-location",
            "sl",
            "cd",
            "chdir",
            "push-location",
            "pushd",
        ],
        switches: &["PassThru"],
        values: &["Path", "LiteralPath", "StackName"],
        positional: &["Path"],
        effect: Effect::ChangeDir,
    },
    Cmdlet {
        names: &[
            "out-string",
            "oss",
            "convertto-json",
            "convertto-csv",
            "convertto-xml",
            "convertto-html",
            "format-table",
            "ft",
            "format-list",
            "fl",
            "format-wide",
            "fw",
            "select-object",
            "select",
            "sort-object",
            "sort",
            "out-host",
            "oh",
        ],
        switches: &[],
        values: &[],
        positional: &[],
        effect: Effect::Filter,
    },
    Cmdlet {
        names: &["get-content", "gc", "cat", "type"],
        switches: &["Raw", "Wait", "Force", "AsByteStream"],
        values: &[
            "Path",
            "LiteralPath",
            "TotalCount",
            "Head",
            "First",
            "Tail",
            "Last",
            "Encoding",
            "ReadCount",
            "Delimiter",
            "Stream",
            "Filter",
            "Include",
            "Exclude",
        ],
        positional: &["Path"],
        effect: Effect::Read,
    },
    Cmdlet {
        names: &["clear-content", "clc"],
        switches: &["Force"],
        values: ITEM_VALUES,
        positional: &["Path"],
        effect: Effect::Truncate,
    },
    Cmdlet {
        names: &["set-content", "sc"],
        switches: CONTENT_SWITCHES,
        values: CONTENT_VALUES,
        positional: &["Path", "Value"],
        effect: Effect::SetContent,
    },
    Cmdlet {
        names: &["add-content", "ac"],
        switches: CONTENT_SWITCHES,
        values: CONTENT_VALUES,
        positional: &["Path", "Value"],
        effect: Effect::AddContent,
    },
    Cmdlet {
        names: &["out-file"],
        switches: &["Append", "Force", "NoClobber", "NoNewline"],
        values: &[
            "FilePath",
            "LiteralPath",
            "Encoding",
            "InputObject",
            "Width",
        ],
        positional: &["FilePath", "Encoding"],
        effect: Effect::OutFile,
    },
    Cmdlet {
        names: &["tee-object", "tee"],
        switches: &["Append"],
        values: &[
            "FilePath",
            "LiteralPath",
            "Variable",
            "InputObject",
            "Encoding",
        ],
        positional: &["FilePath"],
        effect: Effect::Tee,
    },
    Cmdlet {
        names: &["copy-item", "cp", "copy", "cpi"],
        switches: &["Recurse", "Force", "Container", "PassThru"],
        values: &[
            "Path",
            "Destination",
            "LiteralPath",
            "Filter",
            "Include",
            "Exclude",
            "ToSession",
            "FromSession",
            "Credential",
        ],
        positional: &["Path", "Destination"],
        effect: Effect::Copy,
    },
    Cmdlet {
        names: &["move-item", "mv", "move", "mi"],
        switches: &["Force", "PassThru"],
        values: &[
            "Path",
            "Destination",
            "LiteralPath",
            "Filter",
            "Include",
            "Exclude",
            "Credential",
        ],
        positional: &["Path", "Destination"],
        effect: Effect::Move,
    },
    Cmdlet {
        names: &[
            "invoke-webrequest",
            "invoke-restmethod",
            "iwr",
            "irm",
            "curl",
            "wget",
        ],
        switches: &[
            "UseBasicParsing",
            "SkipCertificateCheck",
            "UseDefaultCredentials",
            "DisableKeepAlive",
            "PassThru",
            "Resume",
        ],
        values: &[
            "Uri",
            "OutFile",
            "InFile",
            "Body",
            "Method",
            "Headers",
            "ContentType",
            "Credential",
            "UserAgent",
            "Proxy",
            "TimeoutSec",
            "Form",
            "SessionVariable",
            "WebSession",
            "MaximumRedirection",
        ],
        positional: &["Uri"],
        effect: Effect::Web,
    },
    Cmdlet {
        names: &["start-bitstransfer"],
        switches: &["Asynchronous", "Suspended"],
        values: &[
            "Source",
            "Destination",
            "TransferType",
            "DisplayName",
            "Priority",
            "Credential",
            "ProxyUsage",
        ],
        positional: &["Source", "Destination"],
        effect: Effect::Bits,
    },
    Cmdlet {
        names: &["invoke-expression", "iex"],
        switches: &[],
        values: &["Command"],
        positional: &["Command"],
        effect: Effect::Expression,
    },
    Cmdlet {
        names: &["start-process", "saps", "start"],
        switches: &[
            "Wait",
            "NoNewWindow",
            "PassThru",
            "UseNewEnvironment",
            "LoadUserProfile",
        ],
        values: &[
            "FilePath",
            "ArgumentList",
            "Verb",
            "WorkingDirectory",
            "WindowStyle",
            "Credential",
            "RedirectStandardOutput",
            "RedirectStandardError",
            "RedirectStandardInput",
        ],
        positional: &["FilePath", "ArgumentList"],
        effect: Effect::StartProcess,
    },
    Cmdlet {
        names: &[
            "invoke-command",
            "icm",
            "foreach-object",
            "%",
            "foreach",
            "where-object",
            "?",
            "where",
            "measure-command",
            "start-job",
            "sajb",
        ],
        switches: &[
            "AsJob",
            "HideComputerName",
            "NoNewScope",
            "InDisconnectedSession",
        ],
        values: &[
            "ScriptBlock",
            "ArgumentList",
            "ComputerName",
            "Session",
            "Credential",
            "FilePath",
            "InputObject",
            "Process",
            "Begin",
            "End",
            "FilterScript",
            "MemberName",
            "Name",
            "JobName",
        ],
        positional: &["ScriptBlock"],
        effect: Effect::RunBlocks,
    },
    Cmdlet {
        names: &["get-childitem", "ls", "dir", "gci"],
        switches: &[
            "Recurse",
            "Force",
            "Name",
            "File",
            "Directory",
            "Hidden",
            "ReadOnly",
            "System",
            "FollowSymlink",
        ],
        values: &[
            "Path",
            "LiteralPath",
            "Filter",
            "Include",
            "Exclude",
            "Depth",
            "Attributes",
        ],
        positional: &["Path", "Filter"],
        effect: Effect::List,
    },
    Cmdlet {
        names: &["select-string", "sls"],
        switches: &[
            "SimpleMatch",
            "CaseSensitive",
            "NotMatch",
            "AllMatches",
            "Quiet",
            "List",
            "Raw",
            "NoEmphasis",
        ],
        values: &[
            "Pattern",
            "Path",
            "LiteralPath",
            "InputObject",
            "Context",
            "Encoding",
            "Include",
            "Exclude",
            "Culture",
        ],
        positional: &["Pattern", "Path"],
        effect: Effect::Search,
    },
    Cmdlet {
        names: &["compress-archive"],
        switches: &["Update", "Force", "PassThru"],
        values: &["Path", "DestinationPath", "LiteralPath", "CompressionLevel"],
        positional: &["Path", "DestinationPath"],
        effect: Effect::Compress,
    },
    Cmdlet {
        names: &["expand-archive"],
        switches: &["Force", "PassThru"],
        values: &["Path", "DestinationPath", "LiteralPath"],
        positional: &["Path", "DestinationPath"],
        effect: Effect::Expand,
    },
    Cmdlet {
        names: &["new-item", "ni", "mkdir", "md"],
        switches: &["Force"],
        values: &["Path", "Name", "ItemType", "Value", "Credential"],
        positional: &["Path"],
        effect: Effect::NewItem,
    },
    Cmdlet {
        names: &[
            "register-scheduledtask",
            "register-scheduledjob",
            "new-service",
        ],
        switches: &["Force"],
        values: &[
            "TaskName",
            "Action",
            "Trigger",
            "Settings",
            "Principal",
            "User",
            "Password",
            "TaskPath",
            "Description",
            "InputObject",
            "Xml",
            "Name",
            "ScriptBlock",
            "FilePath",
            "BinaryPathName",
            "StartupType",
        ],
        positional: &["TaskName"],
        effect: Effect::Schedule,
    },
    Cmdlet {
        names: &["set-itemproperty", "sp", "new-itemproperty"],
        switches: &["Force", "PassThru"],
        values: &[
            "Path",
            "Name",
            "Value",
            "LiteralPath",
            "PropertyType",
            "Type",
            "Filter",
            "Include",
            "Exclude",
            "InputObject",
            "Credential",
        ],
        positional: &["Path", "Name", "Value"],
        effect: Effect::SetProperty,
    },
    // A value removed or cleared changes what a Run key starts as much as one set does.
    Cmdlet {
        names: &["remove-itemproperty", "rp", "clear-itemproperty", "clp"],
        switches: &["Force", "PassThru"],
        values: &[
            "Path",
            "Name",
            "LiteralPath",
            "Filter",
            "Include",
            "Exclude",
            "Credential",
        ],
        positional: &["Path", "Name"],
        effect: Effect::SetProperty,
    },
    Cmdlet {
        names: &["rename-item", "ren", "rni"],
        switches: &["Force", "PassThru"],
        values: &["Path", "NewName", "LiteralPath", "Credential"],
        positional: &["Path", "NewName"],
        effect: Effect::Rename,
    },
    Cmdlet {
        names: &["set-executionpolicy"],
        switches: &["Force"],
        values: &["ExecutionPolicy", "Scope"],
        positional: &["ExecutionPolicy", "Scope"],
        effect: Effect::ExecutionPolicy,
    },
];

/// Statement keywords: their conditions and blocks run, the keyword itself does nothing.
pub(super) const KEYWORDS: &[&str] = &[
    "if", "elseif", "else", "foreach", "for", "while", "do", "until", "switch", "try", "catch",
    "finally", "function", "filter", "trap", "param", "begin", "process", "end", "return", "throw",
    "data",
];

/// A parameter of a cmdlet, found by name or unambiguous prefix.
pub(super) enum Param {
    Switch(&'static str),
    Value(&'static str),
    /// A common switch (`-Verbose`): nothing to write.
    CommonSwitch,
    /// A common parameter with a value (`-ErrorAction Stop`): its value is skipped.
    CommonValue,
}

/// Parameter aliases (`-ea` is `-ErrorAction`, `-LP` is `-LiteralPath`, New-Item's `-Target`
/// is `-Value`), each taken only where the cmdlet has the parameter it stands for.
const PARAM_ALIASES: &[(&str, &str)] = &[
    ("ea", "ErrorAction"),
    ("wa", "WarningAction"),
    ("infa", "InformationAction"),
    ("ev", "ErrorVariable"),
    ("wv", "WarningVariable"),
    ("iv", "InformationVariable"),
    ("ov", "OutVariable"),
    ("ob", "OutBuffer"),
    ("pv", "PipelineVariable"),
    ("vb", "Verbose"),
    ("db", "Debug"),
    ("wi", "WhatIf"),
    ("cf", "Confirm"),
    ("lp", "LiteralPath"),
    ("pspath", "LiteralPath"),
    ("target", "Value"),
    ("fullname", "LiteralPath"),
];

/// The parameter `-name` names: an alias's parameter, an exact name, then the first one it is a
/// prefix of.
pub(super) fn find_param(cmdlet: &Cmdlet, name: &str) -> Option<Param> {
    let lower = name.to_ascii_lowercase();
    let lower = PARAM_ALIASES
        .iter()
        .find(|(alias, _)| *alias == lower)
        .map_or(lower, |(_, canonical)| canonical.to_ascii_lowercase());
    let matches = |list: &'static [&'static str]| {
        let exact = list.iter().find(|p| p.eq_ignore_ascii_case(&lower));
        exact.or_else(|| {
            list.iter()
                .find(|p| p.to_ascii_lowercase().starts_with(&lower))
        })
    };
    let exact = |list: &'static [&'static str]| list.iter().any(|p| p.eq_ignore_ascii_case(&lower));
    if exact(COMMON_SWITCHES) {
        return Some(Param::CommonSwitch);
    }
    if exact(COMMON_VALUES) {
        return Some(Param::CommonValue);
    }
    if let Some(switch) = matches(cmdlet.switches) {
        return Some(Param::Switch(switch));
    }
    if let Some(value) = matches(cmdlet.values) {
        return Some(Param::Value(value));
    }
    if matches(COMMON_SWITCHES).is_some() {
        return Some(Param::CommonSwitch);
    }
    matches(COMMON_VALUES).map(|_| Param::CommonValue)
}
