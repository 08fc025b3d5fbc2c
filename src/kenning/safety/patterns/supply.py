"""The supply chain: where packages come from and whether their downloads are checked.

An attack on the supply chain needs no command that looks dangerous. It points the package
manager somewhere else (``registry=http://...``, ``@types:registry=https://...``, a mirror named
like the real registry, ``replace-with`` a foreign crate source), switches the checks off
(``strict-ssl=false``, ``--trusted-host``, ``GOSUMDB=off``, ``NODE_TLS_REJECT_UNAUTHORIZED: "0"``,
an ``integrity`` line deleted from a lockfile), or installs a name one letter away from a
popular package (``reqeusts``, ``lodahs``, ``go1ang``). The rows read those settings where they
take effect: a command with a real target, a line of a configuration file, an instruction to
always use them. A checklist that names them (`` `curl -k`, `verify=False` are forbidden ``), a
rule against them, the company's internal mirror (``artifactory.corp.example.com``, a
``.internal`` host) and a local development server (``curl -k https://localhost:8443``) pass.

The popular names and their look-alikes are in :mod:`.popular`.
"""

from __future__ import annotations

import re
from typing import Final

from kenning.safety import compiled
from kenning.safety.patterns.popular import lookalike_of
from kenning.safety.patterns.schema import MEMORY, Pattern, ascii_regex, multilingual_regex

# A host on this machine or the local network, or a documentation placeholder.
_LOCAL_HOST: Final = compiled.regex(
    r"""https?://(?:localhost|127\.\d+\.\d+\.\d+|\[::1\]|0\.0\.0\.0|10\.\d+\.\d+\.\d+
      |192\.168\.\d+\.\d+|172\.(?:1[6-9]|2\d|3[01])\.\d+\.\d+|host\.docker\.internal
      |[\w.-]+\.(?:local|localhost|test|internal|lan|home\.arpa|corp|intranet))(?![\w.-])
      |\blocalhost\b|\b127\.0\.0\.1\b""",
    re.IGNORECASE | re.VERBOSE,
)
# Local development said in words: "the local dev cert", "lokal", "本地", "ローカル", "로컬".
_LOCAL_WORDS: Final = compiled.regex(
    r"\b(?:local(?:ly)?|self-signed\s+dev|dev\s+cert|lokal\w*|locale?)\b|本地|ローカル|로컬",
    re.IGNORECASE,
)


def _local_only(clause: str) -> bool:
    """True if the clause is about this machine: a localhost URL or local development."""
    return _LOCAL_HOST.search(clause) is not None or _LOCAL_WORDS.search(clause) is not None


# ---- checks switched off -------------------------------------------------------------------------

# The settings that switch a check off, as a shell or a config file spells them.
_TLS_OFF_SETTING: Final = r"""(?:
    NODE_TLS_REJECT_UNAUTHORIZED["']?\s*[:=]\s*["']?0\b
  | PYTHONHTTPSVERIFY["']?\s*[:=]\s*["']?0\b
  | GIT_SSL_NO_VERIFY["']?\s*[:=]\s*["']?(?:1|true)\b
  | (?:npm_config_strict_ssl|NPM_CONFIG_STRICT_SSL|strict-ssl|strict_ssl)["']?\s*[:=]\s*["']?false\b
  | enableStrictSsl["']?\s*:\s*["']?false\b | checksumBehavior["']?\s*:\s*["']?(?:ignore|update)\b
  | check-revoke\s*=\s*false\b | ssl-version\s*=\s*["']?tlsv1(?:\.0)?["']
  | sslVerify\s*[:=]\s*["']?false\b | \bhttp\.sslVerify\s*=?\s*false\b
  | (?:PIP_TRUSTED_HOST|trusted-host|trusted_host)["']?\s*[:=]\s*["']?\S
  | (?:insecure_skip_verify|InsecureSkipVerify|insecure-skip-tls-verify|skip_cert_verification
      |skip_tls_verify|skip-tls-verify|tls_skip_verify|insecure_skip_tls_verify)["']?\s*[:=]\s*["']?true\b
  | rejectUnauthorized["']?\s*:\s*false\b | verify_ssl\s*=\s*false\b | ssl_verify["']?\s*:\s*false\b
  | sslverify\s*=\s*(?:0|false|no)\b | gpgcheck\s*=\s*0\b
  | GOSUMDB["']?\s*[:=]\s*["']?off\b
  | (?:GONOSUMDB|GONOSUMCHECK|GOINSECURE|GOPRIVATE)["']?\s*[:=]\s*["']?\*
  | GOFLAGS["']?\s*[:=]\s*["']?[^\n"']*-insecure\b
  | DOCKER_CONTENT_TRUST["']?\s*[:=]\s*["']?0\b
  | "insecure-registries"\s*:\s*\[\s*"
  | (?:SIGNING_REQUIRED|SIGNATURE_VERIFY|VERIFY_SIGNATURES?|COSIGN_VERIFY)["']?\s*[:=]\s*
    ["']?(?:false|0|off)\b
  | SKIP_(?:SIGNATURE|SIG|TLS|SSL|CERT)\w*["']?\s*[:=]\s*["']?(?:1|true|yes)\b
)"""

# Flags that switch a check off on one command (-k is read for curl only, by its own branch:
# "kubectl apply -k" is kustomize, "wget -k" converts links).
_TLS_OFF_FLAG: Final = r"""(?:
    --insecure\b | --no-check-certificate\b | --trusted-host\b
  | --no-verify-ssl\b | -SkipCertificateCheck\b | --insecure-skip-tls-verify\b
  | --disable-content-trust\b | --allow-unauthenticated\b | --nogpgcheck\b | --no-gpg-checks\b
  | --skip-signature-check\b | --insecure-registry\b | -c\s+http\.sslVerify=false\b
)"""

# What an instruction to use them says: "always", "pass", "use", "add", "set", in languages.
_ALWAYS: Final = r"""(?:
    \b(?:always|every\s+time|for\s+(?:every|all)|pass|use|add|set|append|immer|stets|verwende\w*
      |benutze\w*|setze\w*|siempre|usa|utiliza|añade|agrega|pon|toujours|utilise|ajoute|passe
      |mets|sempre|use|adicione|coloque|altijd|gebruik|voeg|alltid|använd|lägg|zawsze|użyj|dodaj
      |vždy|použij|her\s+zaman|kullan|ekle|sempre|aggiungi|usa|luôn|luôn\s+luôn|thêm|selalu
      |gunakan|tambahkan|всегда|используй\w*|добавляй\w*|добавь|завжди|додавай)\b
  | 一律|总是|總是|始终|始終|务必|務必|都加|加上|使用|常に|必ず|付けて|つけて|항상|반드시|붙여|추가
)"""

# Within one clause: a dot inside a host name or a file name does not end it.
_IN_CLAUSE: Final = r"(?:[^\n.!?。！？]|\.(?=\S))"

_TLS_PROSE_TOKEN: Final = r"""(?:
    `?curl\s+-k\b | `-k`|`--insecure`|--insecure\b | verify\s*=\s*False\b | --no-check-certificate\b
  | strict-ssl\s*(?:=\s*)?false\b | --trusted-host\b | NODE_TLS_REJECT_UNAUTHORIZED\s*=\s*0\b
  | StrictHostKeyChecking\s*=?\s*no\b | sslVerify\s*(?:=\s*)?false\b | -SkipCertificateCheck\b
  | "?insecure-registries"?\s*:\s*\[\s*"[^"\s]+" | DOCKER_CONTENT_TRUST\s*=\s*0\b
)"""


def _checks_off_locally(match: str) -> bool:
    return _local_only(match)


_TLS_PROSE_TOKEN_RX: Final = multilingual_regex(_TLS_PROSE_TOKEN)
# A negation between the verb and the setting: "the fix is X - NOT `verify=False`".
_NEGATED_BETWEEN: Final = multilingual_regex(
    r"""\b(?:not|never|no|don['’]t|instead\s+of|rather\s+than|nicht|niemals|nie|kein\w*|statt
      |jamais|pas|nunca|nem|non|mai|niet|nooit|inte|aldrig|не|нельзя|никогда|ні)\b
      |不要|禁止|别|勿|而不是|しない|しないで|하지"""
)


# Once, not from now on, said after the setting: "use curl -k once to check the endpoint",
# "`-k` einmalig", "una vez"; "once the proxy is up, always use curl -k" is a standing order.
_ONE_TIME: Final = multilingual_regex(
    r"""\b(?:once|one\s+time|this\s+(?:one\s+)?time|einmal(?:ig)?|diesmal|una\s+vez|esta\s+vez
      |une\s+fois|cette\s+fois|uma\s+vez|desta\s+vez|una\s+volta|eenmalig|één\s+keer|en\s+gång
      |jednorazowo|один\s+раз|разово|bir\s+kez|sekali)\b
      |只这一次|只這一次|仅此一次|僅此一次|这次|這次|今回だけ|一度だけ|한\s*번만|이번만"""
)


def _not_asked_for(match: str) -> bool:
    """A local-only or one-time clause, or one where a negation stands between the setting and
    its verb: before the setting ("never pass `-k`") or, when the setting comes first, after it
    ("`NODE_TLS_REJECT_UNAUTHORIZED=0` bitte niemals setzen")."""
    token = _TLS_PROSE_TOKEN_RX.search(match)
    if token is None:
        between = ""
    elif match[: token.start()].strip(" `\"'"):
        between = match[: token.start()]
    else:
        between = match[token.end() :]
    return (
        _local_only(match)
        or (token is not None and _ONE_TIME.search(match, token.end()) is not None)
        or _NEGATED_BETWEEN.search(between) is not None
    )


# ---- where packages come from --------------------------------------------------------------------

# Settings and commands that say where packages come from, followed by the address.
_SOURCE_SETTING: Final = r"""(?:
    (?:^|\s|["'`])(?:registry|index-url|extra-index-url|index_url|find-links|npmRegistryServer
      |registry-mirrors|GOPROXY|PIP_INDEX_URL|PIP_EXTRA_INDEX_URL|NPM_CONFIG_REGISTRY
      |npm_config_registry|YARN_REGISTRY|UV_INDEX_URL|UV_EXTRA_INDEX_URL)["']?\s*[=:]\s*\[?\s*["']?
  | --(?:registry|index-url|extra-index-url|find-links|source)[=\s]+["']?
  | \s-i\s+["']?(?=https?://)
  | \b(?:npm|pnpm|yarn)\s+config\s+set\s+(?:registry|npmRegistryServer)\s+["']?
  | ^\s*source\s+\(?["'](?=https?://)  # a Gemfile
  | \[\[(?:tool\.poetry\.)?source\]\](?:[^\n]*\n){0,4}?\s*url\s*=\s*["']
  | \breplace-with\s*=\s*["'][\w-]+["'](?:[^\n]*\n){0,6}?[^\n]*?\bregistry\s*=\s*["']
  | "resolved"\s*:\s*" | \bresolution\.tarball\b[^\n]{0,60}?\b(?=https?://)
)"""


def _registrable(host: str) -> str:
    """The label a domain is registered under ("npmjs-cache" of registry.npmjs-cache.org)."""
    labels = host.lower().rstrip(".").split(".")
    if len(labels) >= 3 and re.fullmatch(r"(?:com|co|net|org|gov|ac|edu|or|ne)", labels[-2]):
        return labels[-3]
    return labels[-2] if len(labels) >= 2 else labels[0]


# The registries' own names, and the domains each is really served from.
_BRANDS: Final = compiled.regex(
    r"npmjs|npm|yarnpkg|pythonhosted|pypi|rubygems|ruby|crates|cargo|dockerhub|docker|golang"
    r"|gomod|nuget|maven|gradle|k8s|kubernetes|helm|github|gitlab|homebrew|pnpm|conda|pkg"
)
_OFFICIAL: Final = frozenset(
    """npmjs yarnpkg pythonhosted pypi python rubygems ruby-lang crates docker golang go nuget
    maven apache gradle k8s kubernetes helm github githubusercontent gitlab brew pnpm anaconda
    conda goproxy pkg""".split()
)
_BARE_HOST: Final = compiled.regex(
    r"(?<![\w.@/-])([a-z0-9][\w-]*(?:\.[\w-]+)+)(?::\d+)?/", re.IGNORECASE
)


def _impostor_host(host: str) -> bool:
    """True if ``host`` is registered under a name made from a registry's own (npmjs-cache.org,
    pythonhosted-mirror.fr, dockerhub-cache.io) but is not that registry."""
    label = _registrable(host)
    return label not in _OFFICIAL and _BRANDS.search(label) is not None


def _plain_http_foreign(url: str) -> bool:
    return url.lower().startswith(("http://", "sparse+http://")) and not _LOCAL_HOST.match(
        url.replace("sparse+", "")
    )


def _foreign_source(match: str) -> bool:
    """The address a package source is set to: plain http to another machine, or a host named
    like a registry it is not."""
    for url in re.findall(r"(?:sparse\+|git\+)?https?://[^\s\"'`,)\]}]+", match):
        host = re.sub(r"^(?:sparse\+|git\+)?https?://", "", url).split("/")[0].split(":")[0]
        if _plain_http_foreign(url) or _impostor_host(host):
            return True
    # an image or a module path: "registry.example/library/node", "=> host/org/mod"
    return any(_impostor_host(h) for h in _BARE_HOST.findall(match))


def _not_foreign_source(match: str) -> bool:
    return not _foreign_source(match)


# Installing from an address rather than a registry: "pip install https://host/x.whl",
# "npm install https://host/x.tgz", a dependency on "git+https://host/x.git".
_INSTALL_FROM_URL: Final = r"""(?:
    \b(?:pip3?|uv\s+pip|pipx|python\d?\s+-m\s+pip)\s+install\b[^\n|;&]{0,120}?\s["']?(?=(?:git\+)?https?://)
  | \b(?:npm|pnpm|yarn|bun)\s+(?:install|i|add)\b[^\n|;&]{0,120}?\s["']?(?=(?:git\+)?https?://)
  | \bgem\s+install\b[^\n|;&]{0,120}?--source\s+["']?(?=https?://)
  # package.json; not its (or a JSON schema's) keys that hold addresses of another kind
  # ("$schema" reads "sschema" in the leet view)
  | (?!"(?:[$s]?schema|[$s]?id|[$s]?ref|homepage|url|repository|bugs|funding|author|license
        |website|docs|documentation|image|icon|logo|link|href|endpoint|base_?url)")
    "[@\w./-]+"\s*:\s*"(?=(?:git\+)?https?://)
)"""

# Lockfile integrity removed or replaced: "delete the integrity line", "sustituye integrity por
# el hash que devuelve ese servidor", "integrity 字段删掉".
_DROP: Final = r"""(?:
    delete|remove|drop|strip|omit|blank|empty|clear|replace|overwrite|rewrite|regenerate\s+from
  | entfern\w*|lösch\w*|ersetz\w*|supprim\w*|enlev\w*|retir\w*|remplac\w*|elimin\w*|borr\w*
  | quit\w*|sustitu\w*|reemplaz\w*|apag\w*|remov\w*|substitu\w*|exclu\w*|verwijder\w*|vervang\w*
  | usuń|zastąp|kaldır|değiştir|xoá|xóa|thay|hapus|ganti|удали\w*|убери\w*|замени\w*|видали\w*
  | 删除|删掉|去掉|移除|替换|刪除|刪掉|移除|替換|削除|消して|置き換え|삭제|지우|교체
)"""

# Words beside a package name in prose: using, installing, replacing, depending on one.
_PACKAGE_CUE: Final = r"""(?:
    \b(?:instead|rather|replace[sd]?|switch(?:ed)?|use|using|install\w*|depend\w*|package\w*
      |dependenc\w*|requirements?|import|pin|fork|statt|anstatt|ersetz\w*|au\s+lieu|remplac\w*
      |installe\w*|en\s+lugar|en\s+vez|reemplaz\w*|sustitu\w*|instala\w*|invece|sostitu\w*
      |em\s+vez|ao\s+inv[eé]s|substitu\w*|zamiast|zamie\w*|yerine|thay\s+cho|in\s+plaats\s+van
      |vervang\w*|istället|byt\w*|вместо|замени\w*|установи\w*|dùng|gunakan|pakai)\b
  | 代替|替换|替換|改成|换成|換成|改用|一律用|の代わり|に置き換え|대신|교체|으로\s*바꾸|로\s*바꾸
)"""

_PACKAGE_CUE_RX: Final = multilingual_regex(_PACKAGE_CUE)
# A line about typosquats, not one that installs them: "watch out for typosquats: `reqeusts`".
_SQUAT_MENTION: Final = multilingual_regex(
    r"""typo-?squat\w*|look-?alike|malicious|malware|blocked|\bflag\s+it\b|aren['’]t\s+ours
      |\bfake\b|counterfeit|Tippfehler|b[öo]sartig|malveillant|malicioso|dannoso|kwaadaardig
      |вредонос\w*|поддел\w*|仿冒|假冒|恶意|惡意|悪意|偽|타이포|악성"""
)
# A requirements line: a name, an operator, a version ("reqeusts==2.31"); not a comparison in
# code or a policy ("action == Action::\"Bash\"").
_REQUIREMENT: Final = compiled.regex(r"^\s*([A-Za-z][\w.-]{3,60})\s*(?:[=<>!~]=|>=|<=)\s*v?\d")
_INSTALLED: Final = compiled.regex(
    r"\b(?:pip3?|uv\s+pip|pipx|npm|pnpm|yarn|bun|gem|cargo|go)\s+(?:install|i|add|get)"
    r"((?:\s+[@\w./=<>~^-]{2,120}){1,8})"
)
_MANIFEST_KEY: Final = compiled.regex(r'^\s*"([@\w./-]{4,120})"\s*:\s*"[\^~>=<]?\d')
_ORG: Final = compiled.regex(r"\b(?:github\.com|gitlab\.com)/([\w.-]{4,60})")
# A name in backticks, unless a negation stands right before it ("`requests`, not `reqeusts`").
_BACKTICKED: Final = multilingual_regex(
    r"""(?<!\bnot\s)(?<!\bno\s)(?<!nicht\s)(?<!\bpas\s)(?<!\bnão\s)(?<!\bnie\s)(?<!\bне\s)
        (?<!不是)(?<!而非)(?<!而不是)(?<!아닌)(?<!:)`([@\w./-]{4,120})`"""
)


def _squat_in_line(line: str) -> tuple[str, str] | None:
    """A dependency the line names that imitates a popular package (see :mod:`.popular`)."""
    names: list[str] = []
    for rx in (_REQUIREMENT, _MANIFEST_KEY):
        m = rx.search(line)
        if m:
            names.append(m.group(1))
    for m in _INSTALLED.finditer(line):
        names.extend(w for w in m.group(1).split() if not w.startswith("-"))
    names.extend(_ORG.findall(line))
    quoted: list[str] = []
    if "`" in line and _PACKAGE_CUE_RX.search(line):
        quoted = _BACKTICKED.findall(line)
    # Quoted in prose, a name with an underscore is code (`open_websocket`, a function), so
    # only the whole of it can imitate a package, not its words ("websocket").
    judged = [(name, True) for name in names] + [(name, "_" not in name) for name in quoted]
    for name, parts in judged:
        found = lookalike_of(name, parts=parts)
        if found is not None:
            return None if _SQUAT_MENTION.search(line) else found
    return None


PATTERNS: Final[tuple[Pattern, ...]] = (
    # WHY: with TLS or signature checks off, whoever is on the network path chooses what is
    # installed and run. Settings in a config file or on a command with a real target count;
    # `curl -k https://localhost:8443` and a checklist naming the flags pass.
    Pattern(
        pattern_id="checks_switched_off",
        category="remote_code",
        scopes=MEMORY,
        reason="switches off TLS certificate or signature checks, so anyone on the network path "
        "can swap what is downloaded (supply chain)",
        negatable=True,
        exempt=_checks_off_locally,
        regex=ascii_regex(rf"""
            # a line of a config file, an env block or an export: "strict-ssl=false",
            # 'NODE_TLS_REJECT_UNAUTHORIZED: "0"', "export GOSUMDB=off", "- GIT_SSL_NO_VERIFY=1"
            ^[ \t]*(?:export[ \t]+|-[ \t]+(?![`*])|set[ \t]+|ENV[ \t]+|\$env:)?["']?
            {_TLS_OFF_SETTING}[^\n]*
            # settings on a command line: "GOFLAGS=-insecure GOSUMDB=off go mod download"
          | (?:^|[;&|][ \t]*|\s)(?:[A-Z_]+=\S+[ \t]+)*{_TLS_OFF_SETTING}
            (?=[^\n`]*\b(?:go|npm|pip|yarn
            |pnpm|docker|git|curl|python\d?|node|cargo|terraform)\b)[^\n]*
            # a command with a check off and a real target: "curl -k https://pkg.example/x",
            # "pip install --trusted-host pypi.example x", "wget --no-check-certificate URL"
          | \bcurl\b(?=[^\n|;&`]*?\s-[a-zA-Z]*k[a-zA-Z]*\s)(?=[^\n|;&`]*?https?://)[^\n|;&`]*
          | \b(?:curl|wget|pip3?|uv|npm|pnpm|yarn|git|helm|kubectl|aws|docker|apt(?:-get)?|yum|dnf
            |zypper|Invoke-WebRequest|Invoke-RestMethod|iwr|irm)\b
            (?=[^\n|;&`]*?{_TLS_OFF_FLAG})(?=[^\n|;&`]*?(?:https?://|\s[\w-]+(?:\.[\w-]+)+))[^\n|;&`]*
            # code: "requests.get(url, verify=False)", "ssl._create_unverified_context()"
          | \b(?:requests|httpx|session|client)\.\w+\([^\n]{{0,200}}?\bverify\s*=\s*False\b
          | \bssl\._create_unverified_context\b | \bcheck_hostname\s*=\s*False\b
        """),
    ),
    # WHY: the same asked for in words: "always pass -k to curl", "请一律加上 --insecure",
    # "immer `verify=False` verwenden"; "never use `curl -k`" and "`-k` is forbidden" pass.
    Pattern(
        pattern_id="checks_off_requested",
        category="remote_code",
        scopes=MEMORY,
        reason="asks to switch off TLS certificate or host key checks from now on (supply chain)",
        views=frozenset({"base"}),
        negatable=True,
        exempt=_not_asked_for,
        regex=multilingual_regex(rf"""
            {_ALWAYS}{_IN_CLAUSE}{{0,60}}?{_TLS_PROSE_TOKEN}{_IN_CLAUSE}*
          | {_TLS_PROSE_TOKEN}{_IN_CLAUSE}{{0,60}}?
            (?:\b(?:verwenden|benutzen|setzen|nutzen|hinzufügen|angeben|usar|utilizar|utiliser
              |ajouter|gebruiken|använda|używać|kullan\w*|ekle\w*|aggiungere)\b|を付け|をつけ|を使
              |를\s*붙|를\s*사용|을\s*사용)[^\n.!?。！？]*
        """),
    ),
    # WHY: packages from a plain-http host or one named like a registry it is not, a public
    # scope (@types, @babel) sent to another registry, an install from such an address, a
    # lockfile's integrity removed. The company's own proxy (artifactory.corp.example.com,
    # npm.pkg.github.com, a .internal host) passes.
    Pattern(
        pattern_id="package_source_swap",
        category="remote_code",
        scopes=MEMORY,
        reason="points package installs at a source that is not the registry (plain http, a "
        "look-alike host, a hijacked scope or a lockfile without integrity; supply chain)",
        negatable=True,
        regex=ascii_regex(rf"""
            # a public scope resolved elsewhere: "@types:registry=https://registry.acme-npm.dev/"
            @(?:types|babel|angular|vue|nestjs|aws-sdk|google-cloud|azure|octokit|storybook
              |testing-library|mui|emotion|reduxjs|tanstack|vitejs|sveltejs|fortawesome|prisma|nuxt
              |remix-run|apollo|swc|rollup|eslint|typescript-eslint|jest|sentry|opentelemetry|slack
              |stripe|firebase|supabase|vercel|modelcontextprotocol|anthropic-ai|openai)
            :registry\s*[=:]\s*["']?https?://(?!registry\.npmjs\.org|registry\.yarnpkg\.com)
            # a lockfile's integrity removed or replaced, in words: "delete the `integrity`
            # line", "sustituye `integrity` por el hash de ese servidor", "integrity 字段删掉"
            # ("integrity check failed? delete node_modules" removes something else)
          | \b{_DROP}\s+(?:(?:the|its|their|all|every|each|any|el|la|los|las|le|les|die|den|das
              |o|a|os|as|het|de)\s+)?[`"']?integrity\b
          | \bintegrity[`"']?\s+(?:(?:Feld|Zeile|Eintrag|veld|regel)\s+)?(?:entfernen|löschen
            |ersetzen|weglassen|verwijderen|vervangen|weghalen)\b
          | \bintegrity[`"']?\s*(?:字段|欄位|行|フィールド|필드|項目)?\s*(?:を|를|을)?\s*
            (?:删除|删掉|去掉|移除|替换|刪除|刪掉|替換|削除|消して|置き換え|삭제|지우|교체)
        """),
    ),
    # WHY: the address a package source or an install is set to: plain http to another machine,
    # or a host registered under a registry's name that is not the registry.
    Pattern(
        pattern_id="package_source_impostor",
        category="remote_code",
        scopes=MEMORY,
        reason="installs packages from plain http or a host that imitates a registry "
        "(supply chain)",
        negatable=True,
        exempt=_not_foreign_source,
        regex=ascii_regex(rf"""
            (?:{_SOURCE_SETTING}|{_INSTALL_FROM_URL})(?:sparse\+|git\+)?https?://[^\s"'`,)\]}}]+
          | \breplace\s+[\w./-]+\s+=>\s+(?:https?://)?[\w-]+(?:\.[\w-]+)+/[^\s]+
          | \b(?:pull|from|image:)\s+["'`]?[\w-]+(?:\.[\w-]+)+(?::\d+)?/[\w./-]+
          | `[\w-]+(?:\.[\w-]+)+(?::\d+)?/[^`\s]*`
        """),
    ),
    # WHY: a dependency one letter from a popular package ("reqeusts", "lodahs", "colourama",
    # "go1ang-tools", "jsonwebtoken-secure") is how typosquatted packages get installed; the
    # real names, names of their own (requests-oauthlib) and warnings about typosquats pass.
    Pattern(
        pattern_id="typosquat_dependency",
        category="remote_code",
        scopes=MEMORY,
        reason="installs a package named one letter away from a popular one, a typosquat "
        "(supply chain)",
        views=frozenset({"base"}),
        negatable=True,
        exempt=lambda line: _squat_in_line(line) is None,
        # a line that may name a dependency (the names are read by _squat_in_line)
        regex=ascii_regex(r"""
            ^[^\n]*?(?:==|>=|<=|~=|\b(?:install|add|get|i)\s|"\s*:\s*"[\^~>=<]?\d|github\.com/
              |gitlab\.com/|`)[^\n]*
        """),
    ),
)
