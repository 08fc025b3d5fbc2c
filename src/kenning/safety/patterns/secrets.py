"""More secrets pasted as text, beyond :mod:`.credentials`: vendor tokens, cloud keys, bearer
tokens, passwords said in prose in many languages, credentialed command lines.

A password is recognised by what introduces it ("password is", "密码是", "パスワードは",
"пароль:", "Passwort lautet" ...) and by what it looks like: 6 to 64 characters with a letter
and a digit or symbol, not a placeholder ("${DB_PASSWORD}", "<password>", "changeme",
"PASSWORD"). "Password policy: minimum 12 characters" has no such value and passes.
"""

from __future__ import annotations

import re
from typing import Final

from kenning.safety import compiled
from kenning.safety.patterns.credentials import is_fixture
from kenning.safety.patterns.schema import BASE, MEMORY, Pattern, ascii_regex

REASON: Final = "looks like a secret; memory is stored in plain text and enters prompts"

# A value that looks like a password: no placeholder, a letter and a digit or symbol.
_VALUE: Final = r"""
    (?<![^\s`'"“「:：=])[`'"“「]?
    (?!https?:|[^\s]*://|[~.]{0,2}/)  # not a URL nor a path
    # not code ("z.string().min(8)", "this.#hash(pw)", "os.environ[...]") nor a type
    # ("password: String!")
    (?![A-Za-z_$#][\w$#]*(?:\.[A-Za-z_$#][\w$#]*)*\s*[(\[]|[A-Za-z_]\w*\.[A-Za-z_#]
       |(?:String|string|str|Text|text|varchar|VARCHAR)[!?]?(?:\[\])?(?![\w-]))
    (?!(?:\$|\{\{|<|\*{3}|x{4}|\.{3}|changeme\b|your[_\s-]|example|placeholder|redacted|password\b
       |PASSWORD\b|none\b|null\b|TBD\b|secret\b|1Password\b))
    (?=[^\s`'",;。，、”」]{0,63}[A-Za-z])(?=[^\s`'",;。，、”」]{0,63}[0-9!@#$%^&*+=~?])
    [^\s`'",;。，、”」]{6,64}
"""

PATTERNS: Final[tuple[Pattern, ...]] = (
    # WHY: vendor formats the api_token row of .credentials does not know.
    Pattern(
        pattern_id="vendor_token",
        category="secret",
        scopes=MEMORY,
        reason=REASON,
        views=BASE,
        regex=ascii_regex(r"""(?-i:
            \bglpat-[A-Za-z0-9_-]{20}  # GitLab
          | \bnpm_[A-Za-z0-9]{36}\b  # npm
          | \bhf_[A-Za-z0-9]{30,}\b  # Hugging Face
          | \bpypi-AgEI[A-Za-z0-9_-]{50,}  # PyPI
          | \bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}  # SendGrid
          | \b\d{8,10}:AA[A-Za-z0-9_-]{30,}\b  # Telegram bot
          | \bLTAI[A-Za-z0-9]{12,24}\b  # Alibaba Cloud
          | \bAccountKey=[A-Za-z0-9+/]{40,}={0,2}  # Azure storage
          | discord(?:app)?\.com/api/webhooks/\d{15,}/[A-Za-z0-9_-]{30,}
          | \b(?:AC|SK)[0-9a-f]{32}\b  # Twilio
        )"""),
    ),
    # WHY: the other half of an AWS key pair, and secrets named as such in config syntax.
    Pattern(
        pattern_id="secret_assignment",
        category="secret",
        scopes=MEMORY,
        reason=REASON,
        views=BASE,
        regex=ascii_regex(r"""
            \baws_secret_access_key\s*[=:]\s*(?![A-Za-z0-9/+]{0,33}EXAMPLE)[A-Za-z0-9/+]{40}\b
          | (?-i:\bAKIA(?![0-9A-Z]{0,9}EXAMPLE)[0-9A-Z]{16}\b)
            [^\n]{0,60}?\bsecret\b[^\n]{0,20}?[A-Za-z0-9/+]{40}\b
          | \bclient_secret\s*[:=]\s*["']?(?!\$|\{\{|<)[A-Za-z0-9~._-]{24,}
          | \bAuthorization\s*:\s*Bearer\s+(?!\$|\{\{|<)[A-Za-z0-9._~+/-]{20,}
          | \bmysql\b[^\n]{0,80}?\s-p["']?(?!\$|\{|<)[^\s"']{6,}
          | \b(?:PGPASSWORD|MYSQL_PWD|REDIS_PASSWORD)=(?!\$|\{|<)[^\s"']{6,}
        """),
    ),
    # WHY: passwords said in a sentence, in many languages.
    Pattern(
        pattern_id="password_in_text",
        category="secret",
        scopes=MEMORY,
        reason=REASON,
        views=BASE,
        # a test fixture's ("password": "testpass123"): the value is the match's last word
        exempt=lambda match: is_fixture(match.split()[-1].split(":")[-1] if match.split() else ""),
        regex=compiled.regex(
            rf"""
            # the word, not a placeholder in a template ("user:<password>@host")
            (?<![<{{])
            (?:\b(?:password|passwd|passphrase|pwd|passcode)\b(?![>}}@])[^\n:=.]{{0,40}}?(?:\bis\b|[:=]|：|\blautet\b)
              |\blogin\s+is\s+\S{{1,40}}\s*/
              |密码|密碼|口令|パスワード|비밀번호|암호|пароль|contraseña|\bPasswort\b|mot\s+de\s+passe
              |\bsenha\b|كلمة\s+المرور|şifre|\bparola\b|\bhasło\b|\bheslo\b|\bwachtwoord\b
              |lösenord|\bpassord\b|adgangskode|salasana|jelszó|κωδικός|סיסמ[הת]|पासवर्ड|পাসওয়ার্ড
              |รหัสผ่าน|mật\s+khẩu|kata\s+sandi|رمز\s+عبور|گذرواژه)
            (?![@>}}])  # "user:CONTRASEÑA@host", "<senha>": the word is a placeholder
            [^\n。！？!?()]{{0,30}}?  # within the sentence, not into a parenthesis
            (?:是|为|為|：|:|は|는|은|\blautet\b|\bes\b|\best\b|\bé\b|\bist\b|هي|—|-)?[ \t]*
            (?P<value>{_VALUE})
            """,
            re.IGNORECASE | re.MULTILINE | re.VERBOSE,
        ),
    ),
)
