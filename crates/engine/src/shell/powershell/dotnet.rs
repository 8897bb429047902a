//! The static .NET members the PowerShell front end reads (`[IO.File]::ReadAllText(…)`,
//! `[IO.Directory]::Delete(…)`, `[Environment]::GetEnvironmentVariables()`): their types and
//! what each does in POSIX terms. A member of any other type is not read (the caller falls
//! back to an ask).

/// What a static member does, written in POSIX terms by `Writer::dotnet_call`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Call {
    /// The file's text (`ReadAllText(PATH)`): `cat`.
    Read,
    /// The file written with the second argument (`WriteAllText(PATH, TEXT)`).
    Write,
    /// The second argument appended to the file (`AppendAllText(PATH, TEXT)`).
    Append,
    /// The file created empty, or emptied (`Create(PATH)`).
    Create,
    /// `rm` of the file.
    DeleteFile,
    /// The directory removed: `rm -r` when the second argument is `$true`, else `rmdir`.
    DeleteDir,
    /// `cp FROM TO`.
    Copy,
    /// `mv FROM TO`.
    Move,
    /// `mkdir -p`.
    MakeDir,
    /// `ls` of the directory.
    List,
    /// The whole environment: `env`.
    Environment,
    /// One environment variable (`GetEnvironmentVariable('USERPROFILE')`).
    EnvironmentVariable,
    /// A special folder (`GetFolderPath('UserProfile')`).
    FolderPath,
    /// The arguments joined into one path (`Combine($HOME, '.ssh')`).
    Combine,
    /// A program started with an argument string (`Process::Start(FILE, ARGS)`).
    StartProcess,
    /// A value computed from its arguments, with no effect of its own (`[Math]::Max(1, 2)`).
    Value,
}

/// The members read, by type (lowercase, without `System.`) and member (lowercase; `*` for any
/// member of a type whose members are all values).
const MEMBERS: &[(&str, &[(&str, Call)])] = &[
    (
        "io.file",
        &[
            ("readalltext", Call::Read),
            ("readalllines", Call::Read),
            ("readallbytes", Call::Read),
            ("readlines", Call::Read),
            ("openread", Call::Read),
            ("opentext", Call::Read),
            ("writealltext", Call::Write),
            ("writealllines", Call::Write),
            ("writeallbytes", Call::Write),
            ("appendalltext", Call::Append),
            ("appendalllines", Call::Append),
            ("appendtext", Call::Append),
            ("create", Call::Create),
            ("createtext", Call::Create),
            ("openwrite", Call::Create),
            ("delete", Call::DeleteFile),
            ("copy", Call::Copy),
            ("move", Call::Move),
            ("replace", Call::Move),
            ("exists", Call::Value),
            ("getattributes", Call::Value),
            ("getlastwritetime", Call::Value),
            ("getcreationtime", Call::Value),
        ],
    ),
    (
        "io.directory",
        &[
            ("delete", Call::DeleteDir),
            ("move", Call::Move),
            ("createdirectory", Call::MakeDir),
            ("getfiles", Call::List),
            ("getdirectories", Call::List),
            ("getfilesystementries", Call::List),
            ("enumeratefiles", Call::List),
            ("enumeratedirectories", Call::List),
            ("enumeratefilesystementries", Call::List),
            ("exists", Call::Value),
            ("getcurrentdirectory", Call::Value),
            ("getparent", Call::Value),
        ],
    ),
    (
        "io.path",
        &[
            ("combine", Call::Combine),
            ("join", Call::Combine),
            ("*", Call::Value),
        ],
    ),
    (
        "environment",
        &[
            ("getenvironmentvariables", Call::Environment),
            ("getenvironmentvariable", Call::EnvironmentVariable),
            ("getfolderpath", Call::FolderPath),
            ("currentdirectory", Call::Value),
            ("machinename", Call::Value),
            ("username", Call::Value),
            ("userdomainname", Call::Value),
            ("osversion", Call::Value),
            ("newline", Call::Value),
            ("processorcount", Call::Value),
            ("is64bitoperatingsystem", Call::Value),
            ("is64bitprocess", Call::Value),
            ("tickcount", Call::Value),
            ("tickcount64", Call::Value),
            ("version", Call::Value),
            ("getcommandlineargs", Call::Value),
        ],
    ),
    ("net.webclient", &[("new", Call::Value)]),
    (
        "diagnostics.process",
        &[
            ("start", Call::StartProcess),
            ("getprocesses", Call::Value),
            ("getprocessesbyname", Call::Value),
            ("getprocessbyid", Call::Value),
            ("getcurrentprocess", Call::Value),
        ],
    ),
    // Types whose static members compute values and touch nothing.
    ("environment+specialfolder", &[("*", Call::Value)]),
    ("net.servicepointmanager", &[("*", Call::Value)]),
    ("net.securityprotocoltype", &[("*", Call::Value)]),
    ("math", &[("*", Call::Value)]),
    ("datetime", &[("*", Call::Value)]),
    ("datetimeoffset", &[("*", Call::Value)]),
    ("timespan", &[("*", Call::Value)]),
    ("guid", &[("*", Call::Value)]),
    ("string", &[("*", Call::Value)]),
    ("char", &[("*", Call::Value)]),
    ("int", &[("*", Call::Value)]),
    ("int32", &[("*", Call::Value)]),
    ("int64", &[("*", Call::Value)]),
    ("double", &[("*", Call::Value)]),
    ("bool", &[("*", Call::Value)]),
    ("convert", &[("*", Call::Value)]),
    ("bitconverter", &[("*", Call::Value)]),
    ("text.encoding", &[("*", Call::Value)]),
    ("console", &[("*", Call::Value)]),
    ("regex", &[("*", Call::Value)]),
    ("text.regularexpressions.regex", &[("*", Call::Value)]),
    ("uri", &[("*", Call::Value)]),
    ("version", &[("*", Call::Value)]),
    ("threading.thread", &[("*", Call::Value)]),
];

/// What `[type_name]::member` does, or `None` when it is not a member this front end reads.
///
/// ```text
/// ("System.IO.File", "ReadAllText")  →  Some(Read)
/// ("IO.File", "Open")                →  None
/// ```
pub(super) fn find(type_name: &str, member: &str) -> Option<Call> {
    let type_name = type_name.trim().to_ascii_lowercase();
    let type_name = type_name.strip_prefix("system.").unwrap_or(&type_name);
    let member = member.to_ascii_lowercase();
    let (_, members) = MEMBERS.iter().find(|(known, _)| *known == type_name)?;
    members
        .iter()
        .find(|(known, _)| *known == member || *known == "*")
        .map(|(_, call)| *call)
}

/// The path a special folder's name stands for, under `$HOME` (`UserProfile`, `ApplicationData`,
/// `Startup`, …), in POSIX quoting; `None` for one this front end does not place.
pub(super) fn folder_path(name: &str) -> Option<&'static str> {
    let path = match name.trim().to_ascii_lowercase().as_str() {
        "userprofile" => "\"$HOME\"",
        "applicationdata" => "\"$HOME\"/AppData/Roaming",
        "localapplicationdata" => "\"$HOME\"/AppData/Local",
        "mydocuments" | "personal" => "\"$HOME\"/Documents",
        "desktop" | "desktopdirectory" => "\"$HOME\"/Desktop",
        "startup" => "\"$HOME\"/AppData/Roaming/Microsoft/Windows/'Start Menu'/Programs/Startup",
        _ => return None,
    };
    Some(path)
}
