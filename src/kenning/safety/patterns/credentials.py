"""Credentials pasted as text: API tokens, private keys, passwords.

Memory is plain text, kept in git and sent in every prompt, so a secret written to it leaks to
every future conversation and every clone. These rows apply to memory and skills, not to rule
files, which are the user's own. Placeholders ("sk-your-key-here", "${DB_PASSWORD}",
"changeme") and references to where a secret lives pass. The matched text of a secret is never
echoed: the scanner redacts its excerpt.
"""

from __future__ import annotations

import re
from typing import Final

from kenning.safety import compiled
from kenning.safety.patterns.schema import MEMORY, Pattern, ascii_regex

_R_SECRET: Final = "looks like a secret; memory is stored in plain text and enters prompts"

# A value computed in code or read from the environment, not written out: os.environ["KEY"],
# os.getenv("KEY"), process.env.KEY, settings.API_KEY, getSecret(...).
_CODE: Final = r"(?:[A-Za-z_][\w$#]*(?:\.[A-Za-z_#][\w$#]*)*\s*[(\[]|[A-Za-z_]\w*\.[A-Za-z_#])"

# A test fixture's password: only words tests and examples use for one, a run of digits counted
# up and symbols typed along the keyboard ("testpass123", "password123", "Test123!@#", "sk-12345").
_FIXTURE: Final = compiled.regex(
    r"(?:sk[-_])?(?:(?:my|test(?:ing)?|secure|strong|super|demo|sample|example|dummy|fake|mock"
    r"|pass(?:word|wd)?|pwd|secret|user|abc)+)?(?:0?123\d*|1)?[!@#$%^&*]*",
    re.IGNORECASE,
)
_QUOTED_VALUE: Final = compiled.regex(r"[:=]\s*([\"'])([^\"']*)\1\Z")


def is_fixture(value: str) -> bool:
    """Whether ``value`` (quotes stripped) is a test fixture's password (see ``_FIXTURE``)."""
    return _FIXTURE.fullmatch(value.strip("`'\"“”「」")) is not None


def _not_a_fixture(match: str) -> bool:
    """Whether a quoted value is a test fixture's: an example, not a secret."""
    found = _QUOTED_VALUE.search(match)
    return found is not None and is_fixture(found.group(2))


PATTERNS: Final[tuple[Pattern, ...]] = (
    # WHY: memory is plain text, kept in git, sent in every prompt. Vendor formats are
    # case-sensitive; "sk-your-key-here" passes (real keys contain digits).
    Pattern(
        pattern_id="api_token",
        category="secret",
        scopes=MEMORY,
        reason=_R_SECRET,
        regex=ascii_regex(r"""(?-i:
            \bsk-(?!ant-)(?=[A-Za-z0-9_-]{0,200}?\d)[A-Za-z0-9_-]{20}  # OpenAI, with a digit
          | \bsk-ant-[A-Za-z0-9_-]{20}  # Anthropic
          | \bgh[pousr]_[A-Za-z0-9]{30} | \bgithub_pat_[A-Za-z0-9_]{30}  # GitHub
          # AWS access key id; not AWS's documented example (AKIAIOSFODNN7EXAMPLE) nor a
          # template's AKIAXXXXXXXXXXXXXXXX
          | \b(?:AKIA|ASIA)(?![0-9A-Z]{0,9}EXAMPLE)(?![0-9A-Z]{0,12}XXXX)[0-9A-Z]{16}\b
          | \bxox[baprs]-[A-Za-z0-9-]{10}  # Slack token
          | hooks\.slack\.com/services/T[A-Z0-9]{6,20}/B[A-Z0-9]{6,20}/[A-Za-z0-9]{10}
          | \bAIza[0-9A-Za-z_-]{35}  # Google API key
          | \b[rs]k_live_[0-9A-Za-z]{20}  # Stripe live key
          # JWT; not the sample token jwt.io and its tutorials show
          | \beyJ[A-Za-z0-9_-]{10,400}\.eyJ[A-Za-z0-9_-]{10,2000}\.
            (?!SflKxwRJSMeKKF2QT4fwpMeJf36POk6y)
            [A-Za-z0-9_-]{10}
        )"""),
    ),
    # WHY: a private key is a credential whatever the format (PEM, OpenSSH, PGP), on lines of
    # its own or with "\n" escapes in JSON; a block with no key in it ("...", "<your key>"),
    # as documentation shows one, holds nothing.
    Pattern(
        pattern_id="private_key_block",
        category="secret",
        scopes=MEMORY,
        reason=_R_SECRET,
        regex=ascii_regex(r"""
            -----BEGIN[ A-Z0-9]{0,40}PRIVATE[ ]KEY(?:[ ]BLOCK)?-----
            (?:(?:\s|\\[nr])*[A-Za-z-]{2,40}:[^\n\\]*)*  # headers: "Proc-Type: 4,ENCRYPTED"
            (?:\s|\\[nr])*(?!(?-i:X{4}))[A-Za-z0-9+/]{12}
        """),
    ),
    # WHY: literal passwords; placeholders (${VAR}, <...>, ****, changeme), references pass.
    Pattern(
        pattern_id="password_assignment",
        category="secret",
        scopes=MEMORY,
        reason=_R_SECRET,
        exempt=_not_a_fixture,
        regex=ascii_regex(rf"""
            # 'password = "hunter2hunter2"': a quoted value that is neither a placeholder
            # ($VAR, {{{{ var }}}}, <...>, ***, xxxx, ..., changeme, your-..., example ...) nor
            # only digits
            (?:password|passwd|passphrase|secret|api[_-]?key|access[_-]?token|auth[_-]?token
              |client[_-]?secret|secret[_-]?key|private[_-]?key)
            ["']?\s*[:=]\s*
            (?P<q>["'])
            (?!\s*(?:\$|\{{\{{|<|\*{{3}}|x{{4}}|\.{{3}}|changeme\b|your[_\s-]|example|placeholder
                   |redacted|dummy|none\b|null\b))
            (?![0-9]{{1,200}}(?P=q))
            (?![^"'\s]{{0,60}}(?:x{{4}}|replace[_-]?me|(?<=[\W_])(?:secret|password|token|key)(?:[\W_]|$)))
            [^"'\s]{{6,200}}(?P=q)
            # "DB_PASSWORD=s3cr3t-pass": an upper-case variable, unquoted
          | (?-i:(?:PASSWORD|PASSWD|SECRET|SECRET_KEY|API_KEY|APIKEY|ACCESS_KEY|ACCESS_TOKEN
                   |AUTH_TOKEN|API_TOKEN|PRIVATE_KEY)=)
            (?!\$|\{{\{{|<|["'`])(?![0-9]{{1,200}}\b)(?!{_CODE})
            (?!(?:true|false|none|null|changeme|your_?\w{{0,20}}|xxx\w{{0,20}})\b)
            # placeholders in any language: "sk_live_XXXXXXXX", "seu-client-secret", "YOUR_KEY"
            (?![^\s"'`]{{0,60}}(?:x{{4}}|replace[_-]?me|(?<=[\W_])(?:secret|password|token|key)(?:[\W_]|$)))
            (?!(?:seu|sua|tu|votre|dein|deine|ihr|my|mi|mon|ton)[-_])
            [^\s"'`]{{6}}
            # "?password=..." in a URL or a config line
          | \b(?:password|passwd|secret|api_key|apikey|access_token|auth_token|client_secret)=
            (?!\$|\{{\{{|<|%|\*)(?!{_CODE})(?!(?:true|false|none|null|changeme|password|your_?\w{{0,20}})\b)
            (?![^\s&"'`]{{0,60}}(?:x{{4}}|replace[_-]?me|(?<=[\W_])(?:secret|password|token|key)(?:[\W_&]|$)))
            [^\s&"'`]{{6}}
        """),
    ),
    # WHY: user:password@ inside a connection URL is a credential too.
    Pattern(
        pattern_id="credentials_in_url",
        category="secret",
        scopes=MEMORY,
        reason=_R_SECRET,
        regex=ascii_regex(r"""
            # "postgres://app:Sup3rS3cret@db": not "user:password@", "user:$PASS@" or a
            # default the tools ship with ("postgres:postgres@", "root:root@")
            \b[a-z][a-z0-9+.-]{1,20}://[^\s:/@]{1,64}:
            (?!(?:password|pass|secret|changeme|postgres|root|admin|guest|test|example)@|[$<{*])
            (?!(?-i:[A-Z_\u00c0-\u00de]{2,64})@)  # "USUARIO:CONTRASEÑA@": a placeholder in capitals
            [^\s:/@]{6,128}@
        """),
    ),
)
