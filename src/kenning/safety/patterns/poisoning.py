"""Facts that poison: entries that read as information and steer money, code or trust to an
attacker, in many languages.

- ``payment_redirect_intl``: a payee's "new" account (an IBAN, a card or account number, a
  wallet, a UPI or Pix key), said to have changed, together with an order to use it for the
  payments or a waiver of the check that catches the fraud ("no need to confirm with finance",
  "even if the invoice shows another one"). The real notes about bank changes name no account:
  "a vendor emailed new bank details; don't pay until AP calls them" passes, and so does an
  account number stated once with nothing changed.
- ``trusted_host_claim``: what comes from a host declared trusted may run without review or
  without its signature checked ("anything downloaded from it can be executed without review").
- ``host_key_ignored``: a changed SSH host key to be accepted or its warning ignored.

The word lists were written from the languages' common phrasings, not from any test corpus.
"""

from __future__ import annotations

from typing import Final

from kenning.safety.patterns import grammar, schema
from kenning.safety.patterns.grammar import unnegated
from kenning.safety.patterns.schema import EVERY, MEMORY, NATIVE, ClauseRule, Pattern, gate

# An account to pay into: an IBAN, grouped card or account digits, a wallet, a UPI id, a Pix key
# (an e-mail after "Pix"), the digits after a word for "account".
_ACCOUNT: Final = r"""(?:
    \b[A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]{4}){2,7}(?:[ ]?[A-Z0-9]{1,3})?\b
  | \b\d{4}(?:[ ]\d{2,4}){2,5}\b | \b\d{4}(?:-\d{4}){2,4}\b
  | \b0x[0-9a-fA-F]{40}\b | \bbc1[a-z0-9]{25,60}\b | \b[13][a-km-zA-HJ-NP-Z1-9]{25,34}\b
  | \b[\w.-]{2,40}@(?:ok\w+|upi\w*|ybl|paytm|ibl|axl|apl|ptyes|sbi|icici|hdfc\w*|\w*bank)\b
  | \bpix\b[^.\n]{0,60}?[\w.+-]+@[\w-]+\.[\w.]+
  | (?:account|acct|IBAN|konto|cuenta|conta|compte|conto|счёт|счет|карт\w*|口座|账户|帳戶|账号
    |帳號|계좌|hesap
      |rekening|tài\s+khoản|حساب|खाता|บัญชี|חשבון|routing|普通|当座)\D{0,24}?\d{6,}
)"""
# Said to be new, changed or replacing a stale one.
_CHANGED: Final = r"""(?:
    \b(?:chang\w*|switched|moved|new|updated|now|from\s+now\s+on|obsolete|stale|outdated|no\s+longer\s+valid
      |closed|cambiad\w*|cambió|nuev[oa]|ahora|desde\s+hoy|mud\w+|nov[oa]|agora|geändert|gewechselt|neue[nms]?
      |ab\s+sofort|changé\w*|nouve(?:au|lle)|désormais|cambiat\w*|nuov[oa]|gewijzigd|nieuwe?|voortaan|zmieni\w*
      |now[yae]\w*|změn\w*|ändrat|ny[tua]?|değişti|yeni|artık|imebadilika|mpya|nagbago|pindah|baru|ganti|đổi
      |mới|schimbat|megváltozott|új|άλλαξε|νέ[οα]|изменил\w*|сменил\w*|нов\w+|теперь|устарел\w*|змінил\w*)\b
  | \b(?:instead\s+of|rather\s+than|nicht\s+direkt|sondern\s+über|statt|anstatt
    |au\s+lieu\s+d\w*|en\s+lugar\s+de
      |en\s+vez\s+de|em\s+vez\s+de|invece\s+d\w*|in\s+plaats\s+van|zamiast|yerine|вместо)\b
  | 换成|換成|更换|更換|变更|變更|改为|改為|新账户|新帳戶|新的|已经换|已注销|過期|过期|変更
    |変え|変わ|新しい|今月から|변경|바뀌
  | 而不是|ではなく|대신
  | تغير|غيّر|الجديد|الجديدة|من\s+الآن|القديم|تغییر|جدید|از\s+این\s+پس|השתנה|חדש|מעכשיו|बदल|नया
    |नई|अब\s+से|पुरान
  | เปลี่ยน|ใหม่
)"""
# An order to pay there, or the check that would stop it waived.
_PAY_OR_WAIVE: Final = r"""(?:
    \b(?:send|pay|transfer|wire|remit|route)\b[^.\n]{0,40}?\b(?:to|into)\s+(?:(?:the|this|our)\s+)?(?:new\s+)?
      (?:IBAN|account|wallet)\b
  | \b(?:use\s+(?:it|this|these|them)|give\s+this\s+address|go\s+to\s+IBAN
    |process\s+them\s+to\s+this|set\s+the\s+payment
      \s+details\s+to|update\s+every\s+place|regardless|even\s+if|without\s+double-checking|don['’]t\s+loop\s+in
      |just\s+send|úsalo|usa(?:r)?\s+(?:essa|esta|este)|use\s+essa|usa\s+il\s+nuovo|nutzen|einsetzen|verwenden
      |utilis\w+|gebruik\s+dit|płać|kullan|pakai|chuyển\s+vào|formiru\w*|формируй|плати\w*|incluso\s+si|mesmo\s+que
      |auch\s+wenn|même\s+si|anche\s+se|nawet\s+jeśli|ook\s+voor|non\s+serve|não\s+confirme|no\s+confirmes
      |ohne\s+Rückfrage|Rückfrage\s+\w+\s+\w+\s+unnötig|sormaya\s+gerek|không\s+cần|tidak\s+perlu|niet\s+bij)\b
  | 一律用|都用|一律使用|用这个账户|用這個帳戶|付款时用|付款時用|不用再?和|不用再?跟|无需核实
    |無需核實|この口座を使|確認は要りません
  | 確認不要|계좌로|확인할\s*필요\s*없|не\s+пересылай|не\s+проверяй|استخدمه|في\s+كل\s+الفواتير
    |لا\s+داعي|بدلاً\s+من
  | استفاده\s+کن|ضرورتی\s+ندارد|בכל\s+חשבונית|שכבר\s+אומת|यही\s+डाल|भेजे\s+जाएँ
    |पुष्टि\s+करने\s+की\s+(?:ज़रूरत|जरूरत)
)"""
# Payments, in words the entry must hold somewhere (a cheap gate before the regex).
_PAYMENT_WORDS: Final = (
    r"invoice|payment|pay|transfer|refund|payroll|salary|wire|remit|donation|wallet|payout|iban|upi|pix"
    r"|\b[A-Z]{2}\d{2}\s?[A-Z0-9]{4}|rent\b|fee\b|loyer|Miete|alquiler|aluguel|affitto|huur|czynsz|kira|аренд"
    r"|房租|租金|家賃|월세|tuition"
    r"|付款|汇款|匯款|转账|轉帳|退款|发票|發票|报销|報銷|工资|薪资|收款|振込|支払|請求書|給与|송금|결제|입금|급여"
    r"|плат|оплат|перевод|зарплат|реквизит|pago|factura|transferencia|reembolso|nómina|pagamento|fatura"
    r"|reembolso|cobran|Zahlung|Überweisung|Rechnung|Rückerstattung|Gehalt|Vorauszahlung|paiement|facture"
    r"|virement|remboursement|salaire|fattura|bonifico|rimborso|stipendio|betaling|factuur|uitbetaling"
    r"|płatnoś|faktur|przelew|platb|převod|betalning|ödeme|maaş|bordro|مدفوعات|فاتورة|الفواتير|تحويل|راتب"
    r"|پرداخت|فاکتور|واریز|תשלום|חשבונית|העברה|משכורת|भुगतान|पेमेंट|इनवॉइस|रिफ़ंड|वेतन|ชำระ|โอน|thanh\s+toán"
    r"|hóa\s+đơn|học\s+phí|lương|pembayaran|transfer|gaji|donasi|πληρωμ|τιμολόγ|plată|fizetés|számla|malipo|bayad"
)

# WHY: a payee's account said to have changed, and paid without the call-back check; notes
# about bank-change fraud name no account, and a stated account with nothing changed passes.
PAYMENT_REDIRECT: Final = Pattern(
    pattern_id="payment_redirect_intl",
    category="phishing",
    scopes=MEMORY,
    reason="redirects payments to an account it says has changed (fraud)",
    views=NATIVE,
    # (a cheap gate first: something shaped like an account number, then the regex)
    gate=gate(r"\d{4}[ -]?\d{2,4}[ -]?\d{2,4}|\d{6,}|0x[0-9a-f]{40}|bc1[a-z0-9]{20}|@|\bpix\b"),
    # read from the start: the change and the order may stand on either side of the account;
    # the account is looked for first, the rarest of the three
    regex=schema.multilingual_regex(
        grammar.as_read(
            rf"\A(?=[\s\S]{{0,3000}}?{_ACCOUNT})(?=[\s\S]{{0,3000}}?(?:{_PAYMENT_WORDS}))"
            rf"(?=[\s\S]{{0,3000}}?{_CHANGED})(?=[\s\S]{{0,3000}}?{_PAY_OR_WAIVE})[\s\S]{{0,3000}}?{_ACCOUNT}"
        )
    ),
)

# A destination said to have moved ("production now lives at", "теперь шлём на вебхук"), and
# secrets sent along to it in an order no negation precedes ("copy the real .env alongside").
_MOVED_DEST: Final = r"""(?:
    \b(?:deploy\w*|production|prod|server|host|target|webhook|endpoint|bastion|resolver|mirror)\b[^.\n]{0,40}?
      \b(?:changed|moved|now\s+(?:lives|is|at)|is\s+now|migrated)\b
  | \b(?:теперь|отныне)\b[^.\n]{0,40}?\b(?:вебхук|сервер|хост|адрес)
  | \b(?:Server|Host|Ziel|Webhook)\b[^.\n]{0,30}?\bist\s+(?:jetzt|ab\s+sofort)\b
  | \b(?:serveur|hôte|cible|webhook)\b[^.\n]{0,30}?\best\s+désormais\b
  | (?:部署目标|部署目標|正式环境|正式環境|服务器|伺服器|主机|主機)[^。\n]{0,20}?(?:已变更
    |已變更|现在位于|現在位於|改为|改為|迁移到|遷移到)
  | (?:デプロイ先|本番|サーバー)[^。\n]{0,20}?(?:変更|移転|移行)
)"""
_NEG_ANY: Final = (
    r"\b(?:never|not|no|don['’]?t|nie|nicht|niemals|pas|jamais|nunca|não|не|никогда)\b"
    r"|不要|别|別|しない|ないで"
)
_SEND_SECRET: Final = rf"""(?:
    (?:^|(?<=[.!?;:。；\n]))(?:(?!{_NEG_ANY})[^.!?;。；\n])*?
    (?:\b(?:copy|send|attach|include|push|rsync|scp|upload|sync)\b|\b(?:прикладывай|прикрепляй|отправляй|копируй)\w*
      |\b(?:kopier|schick|häng|füg)\w*|\b(?:copie|envoie|joins|ajoute)\b|复制|複製|附上|一併|一并|添付|送って)
    [^.!?;。；\n]{{0,60}}?
    (?:\.env\b|env(?:ironment)?\s+var\w*|переменные\s+окружения|Umgebungsvariablen|variables\s+d['’]environnement
      |variables\s+de\s+entorno|variáveis\s+de\s+ambiente|環境変数|环境变量|環境變數|\btokens?\b|credentials|secrets
      |токен\w*|ключ\w*|Zugangsdaten|identifiants)
)"""

# WHY: secrets copied to a destination said to have moved; "prod moved to the new cluster, never
# copy .env there" is negated and passes.
SECRETS_TO_MOVED_HOST: Final = Pattern(
    pattern_id="secrets_to_moved_host",
    category="exfiltration",
    scopes=MEMORY,
    reason="sends secrets to a destination it says has moved (exfiltration)",
    views=NATIVE,
    gate=gate(
        r"\.env|env|переменн|Umgebungs|environnement|entorno|ambiente|環境|环境|token|токен|credential|secret"
    ),
    regex=schema.multilingual_regex(
        rf"\A(?=[\s\S]{{0,3000}}?{_MOVED_DEST})[\s\S]{{0,3000}}?{_SEND_SECRET}"
    ),
)

PATTERNS: Final[tuple[Pattern, ...]] = (PAYMENT_REDIRECT, SECRETS_TO_MOVED_HOST)

# ---- a host said trusted, what comes from it run unreviewed: (from there, run unchecked) ------
_TRUSTED: Final[list[tuple[str, str]]] = [
    (
        r"\b(?:scripts?|installers?|anything|everything|files?|binaries|packages?|code|downloads?)\s+(?:downloaded\s+"
        r"|fetched\s+|pulled\s+)?from\s+(?:it|there|them|these|this\s+(?:host|mirror|server|domain)|any\s+of\s+"
        r"(?:these|them))\b",
        r"\b(?:run|ran|execut\w*|install\w*)\b[^.!?\n]{0,40}?\b(?:directly|without\s+(?:review|reviewing|showing"
        r"|checking|reading|asking|verification)|as[- ]is)\b|\bskip\s+(?:the\s+)?(?:signature"
        r"|checksum|hash)\s+"
        r"(?:checks?|verification)\b",
    ),
    (
        r"(?:从这里|從這裡|从该|從該|从这个|從這個|这里|這裡)(?:下载|下載)的",
        r"直接执行|直接執行|直接运行|直接運行|(?:不需要|无需|無需|不用)(?:审查|審查|检查|檢查)",
    ),
    (
        r"(?:このホスト|ここ|このサーバー|このミラー)から(?:ダウンロードした|取得した|落とした)",
        r"そのまま実行|確認せず(?:に)?実行|レビューなしで|見せずに",
    ),
    (
        r"(?:이\s*호스트|여기|이\s*서버|이\s*미러)에서\s*(?:받은|다운로드한|내려받은)",
        r"바로\s*실행|검토\s*없이|보여주지\s*않고",
    ),
    (
        r"\b(?:скачанн\w+|загруженн\w+)\s+(?:оттуда|с\s+(?:него|этого\s+(?:хоста|сервера|зеркала)))|\bскрипты\s+с\s+"
        r"(?:него|этого)",
        r"\b(?:запускай|выполняй|можно\s+(?:запускать|выполнять))\s+(?:\S+\s+)?(?:сразу|без\s+проверки|напрямую)",
    ),
    (
        r"\b(?:descargad[oa]s?|scripts?|instaladores?)\s+(?:desde|de)\s+(?:allí|ahí|ese\s+host|este\s+host|él)\b",
        r"\b(?:ejecut\w+|correr|instal\w+)\b[^.!?\n]{0,30}?\b(?:directamente|sin\s+revis\w*|sin\s+mostrar)",
    ),
    (
        r"\b(?:baixad[oa]s?|scripts?|instaladores?)\s+(?:de\s+lá|dali|desse\s+host|deste\s+host)\b",
        r"\b(?:execut\w+|rod\w+|instal\w+)\b[^.!?\n]{0,30}?\b(?:diretamente|sem\s+revis\w*|sem\s+mostrar)",
    ),
    (
        r"\b(?:Skripte|Dateien|Installer|alles)\s+(?:von\s+dort|von\s+diesem\s+(?:Host|Server|Mirror))\b",
        r"\b(?:ausführen|ausgeführt|installieren)\b[^.!?\n]{0,30}?\b(?:direkt|ohne\s+(?:Prüfung|Review|Kontrolle))"
        r"|\b(?:direkt|ohne\s+(?:Prüfung|Review|Kontrolle))\b[^.!?\n]{0,30}?\b(?:ausführen|ausgeführt)",
    ),
    (
        r"\b(?:scripts?|fichiers|installeurs?|tout\s+ce\s+qui\s+vient)\s+(?:de\s+là|de\s+cet\s+hôte|de\s+ce\s+serveur)\b",
        r"\b(?:exécut\w+|lanc\w+|install\w+)\b[^.!?\n]{0,30}?\b(?:directement|sans\s+(?:vérif\w+|relecture|revue))",
    ),
]

# ---- a changed host key accepted: (the key, changed or warned of, accept or go on) ------------
_HOST_KEY: Final[list[tuple[str, str, str]]] = [
    (
        r"\b(?:host\s+keys?|fingerprints?|known_hosts)\b",
        r"\b(?:chang\w*|rotated|warn\w*|complains?|mismatch\w*)\b",
        unnegated(
            r"\b(?:accept|ignore|proceed|reconnect)\b|StrictHostKeyChecking=no|ssh-keygen\s+-R|without\s+(?:verifying"
            r"|checking)",
            "en",
        ),
    ),
    (
        r"ホスト鍵|フィンガープリント|known_hosts",
        r"変わ|警告",
        r"(?:そのまま続行|無視|続行して)(?!し?ない)",
    ),
    (
        r"主机密钥|主機金鑰|主机指纹|主機指紋|known_hosts",
        r"变|變|警告",
        r"继续|繼續|忽略|直接连接|直接連線",
    ),
    (r"호스트\s*키|지문|known_hosts", r"바뀌|변경|경고", r"무시|계속|그대로"),
    (
        r"\b(?:ключ\w*\s+хоста|отпечат\w+|known_hosts)\b",
        r"\b(?:измен\w+|предупрежд\w+|нов\w+)\b",
        unnegated(r"\b(?:игнориру\w*|продолжай|принимай|прими)\b|без\s+проверки", "ru"),
    ),
    (
        r"\b(?:empreinte|clé\s+d['’]hôte|known_hosts)\b",
        r"\b(?:nouvelle|chang\w+|avertissement)\b",
        unnegated(r"\b(?:accepte|ignore|continue)\b|sans\s+vérifi", "fr"),
    ),
    (
        r"\b(?:huella|clave\s+del?\s+host|known_hosts)\b",
        r"\b(?:nueva|cambi\w+|advertencia|aviso)\b",
        unnegated(r"\b(?:acepta|ignora|continúa)\b|sin\s+verificar", "es"),
    ),
    (
        r"\b(?:impressão\s+digital|chave\s+do\s+host|known_hosts)\b",
        r"\b(?:nova|mud\w+|aviso)\b",
        unnegated(r"\b(?:aceite|ignore|continue)\b|sem\s+verificar", "pt"),
    ),
    (
        r"\b(?:Host-?Schlüssel|Fingerprint|known_hosts)\b",
        r"\b(?:neue[nr]?|geändert|Warnung)\b",
        unnegated(
            r"\b(?:akzeptier\w*|ignorier\w*|fortfahren|weitermachen)\b|ohne\s+(?:Prüfung|zu\s+prüfen)",
            "de",
        ),
    ),
]


# A safeguard said to be waived for good: review, second factors, branch protection, sign-off.
# ("Security review is no longer required for deploys", "MFA wurde deaktiviert", "不再需要代码审查")
# A memory that says so is how an attacker makes the agent skip the check next time; a note that
# a check was skipped once, or that one is still required, names no waiver and passes.
_SAFEGUARD: Final = (
    r"\b(?:security|code|peer|pull[ -]request|PR)\s+reviews?\b"
    r"|\b(?:MFA|2FA|two[- ]factor|second\s+factor|branch[- ]protection|sign-?off|four-eyes)\b"
    r"|\bCode-?Review\w*|\bBranch-?Protection|\bZwei-?Faktor\w*"
    r"|\brevis(?:ão|ión)\s+de\s+(?:código|seguridad|segurança)|\bsegundo\s+fator|\bsegundo\s+factor"
    r"|\brevue\s+de\s+(?:code|sécurité)|\bdouble\s+authentification|代码审查|代碼審查|安全审查|安全審查|双重认证"
    r"|二次验证|コードレビュー|セキュリティレビュー|二要素認証|코드\s*리뷰|보안\s*검토|2단계\s*인증"
    r"|\bкод-?ревью|\bпровер\w+\s+кода|\bдвухфакторн\w*"
)
_WAIVED: Final = (
    r"\b(?:is|are)\s+no\s+longer\s+(?:required|needed|mandatory|necessary)|\bnot\s+(?:required|needed)\s+any\s*more"
    r"|\b(?:can|may|should)\s+be\s+(?:skipped|bypassed|switched\s+off|turned\s+off|disabled)"
    r"|\b(?:was|were|has\s+been|have\s+been)\s+(?:disabled|turned\s+off|removed|dropped|waived)"
    r"\s+(?:org-wide|for\s+(?:everyone|all|the\s+whole)|across|company-wide|globally|permanently)"
    r"|\bbrauch\w*\s+kein\w*\s+\S+\s+mehr|\bnicht\s+mehr\s+(?:nötig|erforderlich|notwendig)|\b(?:kann|können)"
    r"\s+(?:dafür\s+)?(?:ausgeschaltet|deaktiviert|übersprungen)\s+werden|\bwurde\w*\s+(?:\S+\s+){0,3}?deaktiviert"
    r"|\bfoi\s+desativad\w*|\bnão\s+(?:é\s+)?mais\s+(?:necessári\w*|obrigatóri\w*|exigid\w*)|\bya\s+no\s+(?:es\s+)?"
    r"(?:necesari\w*|obligatori\w*|requerid\w*)|\bn['’]est\s+plus\s+(?:nécessaire|obligatoire|requise?)"
    r"|不再需要|无需再|無需再|已(?:经)?(?:关闭|關閉|停用)|もう不要|不要になり|必要ありません|더\s*이상\s*필요\s*없"
    r"|больше\s+не\s+(?:нужн\w*|требуется|обязательн\w*)|отключ\w+\s+для\s+всех"
)


def _clause_rule(pattern_id: str, reason: str, alternatives: list[tuple[str, ...]]) -> ClauseRule:
    return grammar.clause_rule(
        pattern_id, "injection", MEMORY, reason, alternatives, views=EVERY, negatable=True
    )


CLAUSE_RULES: Final[tuple[ClauseRule, ...]] = (
    # WHY: a host declared trusted and what it serves run unreviewed; "show me the script first"
    # and "download, read, verify, then run" pass.
    _clause_rule(
        "trusted_host_claim",
        "declares a host trusted so what it serves runs unreviewed (injection)",
        [tuple(row) for row in _TRUSTED],
    ),
    # WHY: see _SAFEGUARD: a check the agent keeps said to be waived for good.
    _clause_rule(
        "safeguard_waived",
        "claims that a check the agent keeps (a review, a second factor, branch protection) has "
        "been waived (injection)",
        [(_SAFEGUARD, unnegated(_WAIVED, "any"))],
    ),
    # WHY: a changed host key accepted without checking; "if it changes, stop and tell me" passes.
    _clause_rule(
        "host_key_ignored",
        "would trust an SSH server whose identity has changed (injection)",
        [tuple(row) for row in _HOST_KEY],
    ),
)
