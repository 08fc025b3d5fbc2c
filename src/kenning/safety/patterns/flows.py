"""Secrets that flow out across lines: read in one statement, sent in a later one.

The rows of :mod:`.payloads` and :mod:`.commands` read one command line: ``cat ~/.aws/credentials
| curl ...``. A script spreads the same over lines and languages::

    cfg = {k: v for k, v in os.environ.items()}              # Python
    urlopen(Request(url, data=json.dumps(cfg).encode()))

    b, _ := os.ReadFile(os.Getenv("HOME") + "/.aws/credentials")   // Go
    http.Post(u, "text/plain", strings.NewReader(string(b)))

    env: { ALL: ${{ toJSON(secrets) }} }                     # GitHub Actions
    run: curl --data-binary @r.txt https://...

The row here fires when a *strong* source (the whole environment serialised, a credentials file
read, every Kubernetes secret dumped, all of a workflow's secrets, a folder of mounted secrets)
and a request that *sends data* (a POST, an upload, a body) stand within a few lines of each
other, in either order. A weak source (one variable such as ``$GITHUB_TOKEN``) is left to the
one-line rows, which know the services a token belongs to: a deploy script that calls its own
API with its token is how the token is used.
"""

from __future__ import annotations

from typing import Final

from kenning.safety import compiled
from kenning.safety.patterns.payloads import _CRED_PATH
from kenning.safety.patterns.schema import ALL, Pattern, ascii_regex

# How code reads a file, in the languages skills and CI are written in.
_READ: Final = r"""(?:
    \b(?:cat|type|Get-Content|gc|ReadFile|ReadAllBytes|ReadAllText|ReadAllLines|readFileSync
      |readFile|createReadStream|read_text|read_bytes|File\.read|IO\.read|slurp|base64|tar|zip
      |7z|open|ioutil\.ReadFile)\b
  | \[IO\.File\]::\w+
)"""

# What holds every secret at once.
_STRONG_SOURCE: Final = rf"""(?:
    {_READ}[^\n]{{0,160}}?{_CRED_PATH}
  | \bos\.environ\.items\(\) | \bdict\(\s*os\.environ\s*\) | \{{\s*\*\*os\.environ\s*\}}
  | \bjson\.dumps\(\s*(?:dict\(\s*)?os\.environ\b
  | \bJSON\.stringify\(\s*process\.env\s*\) | [:=]\s*process\.env\s*[,}};)]
  | \bstrings\.Join\(\s*os\.Environ\(\) | \bENV\.to_h\b | \b(?:Get-ChildItem|gci|dir)\s+env:
  | \$\{{\{{\s*toJSON\(\s*secrets\s*\)\s*\}}\}}
  | \bkubectl(?:\s+-{{1,2}}[\w-]+(?:[=\s](?!get\b)\S+)?)*\s+get\s+secrets?\b[^\n]{{0,120}}?
    -o\s*(?:yaml|json)\b
  | (?:/var)?(?:/run)?/secrets/\*
  | (?:^|[;&|(`]|\$\()[ \t]*(?:env|printenv)[ \t]*(?:>|\|)
)"""

# A request that carries data out: an upload, a body, a POST.
_SENDS: Final = r"""(?:
    \b(?:curl|wget|http|xh)\b[^\n]{0,200}?
    (?:\s(?:-d|-F|-T|--data[\w-]*|--form|--upload-file|--post-data|--post-file|--body-file)\b|@)
  | \b(?:Invoke-RestMethod|Invoke-WebRequest|iwr|irm)\b[^\n]{0,300}?
    -(?:Body|InFile|Method\s+["']?(?:Post|Put))\b
  | \b(?:requests|httpx|session|client|aiohttp)\.(?:post|put|patch)\s*\(
  | \burlopen\s*\([^\n]{0,300}?(?:\bdata\s*=|\bRequest\s*\()
  | \b(?:urllib\.request\.)?Request\s*\([^\n]{0,300}?\bdata\s*=
  | \bhttp\.Post(?:Form)?\s*\( | \bhttp\.NewRequest\s*\(\s*"(?:POST|PUT)"
  | \b\w+\.request\s*\(\s*\{[^\n]{0,300}?\bmethod\s*:\s*["'](?:POST|PUT)
  | \bfetch\s*\([^\n]{0,300}?\bmethod\s*:\s*["'](?:POST|PUT)
  | \baxios\.(?:post|put)\s*\( | \bnavigator\.sendBeacon\s*\(
  | \bNet::HTTP\.post\b | \bNet::HTTP::Post\b | \b(?:HTTParty|RestClient)\.post\b
  | \b(?:nc|ncat|netcat)\s+(?:-(?!\w*z)\w+\s+)*[\w.-]+\s+\d{2,5}\b | /dev/tcp/  # not nc -z
)"""

_URL: Final = compiled.regex(r"https?://\S+")
_PLACEHOLDER_URL: Final = compiled.regex(r"https?://(?:<|\.\.\.|…|\{|\[)")


def _to_nowhere(match: str) -> bool:
    """True if every URL the request names is a placeholder ("https://<attacker-domain>"):
    a write-up quoting an attack, which sends nothing."""
    urls = _URL.findall(match)
    return bool(urls) and all(_PLACEHOLDER_URL.match(url) for url in urls)


PATTERNS: Final[tuple[Pattern, ...]] = (
    # WHY: every secret read in one statement and sent in one of the next; a script that
    # reads its config and calls a health check (GET, no body) passes, and so does one variable
    # sent to its own service (left to secret_to_network).
    Pattern(
        pattern_id="secrets_flow_out",
        category="exfiltration",
        scopes=ALL,
        reason="reads every secret (the environment, a credentials file, all secrets) and "
        "sends it over the network a few lines later (exfiltration)",
        exempt=_to_nowhere,
        negatable=True,
        regex=ascii_regex(rf"""
            # the source first, then within a dozen lines the request
            {_STRONG_SOURCE}(?:[^\n]*\n){{0,12}}?[^\n]*?{_SENDS}[^\n]*
            # or the request first (a helper defined above the code that feeds it)
          | {_SENDS}(?:[^\n]*\n){{0,12}}?[^\n]*?{_STRONG_SOURCE}[^\n]*
        """),
    ),
)
