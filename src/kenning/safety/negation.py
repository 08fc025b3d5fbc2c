"""Rules against a thing: whether a negation governs a match, in the languages the rules know.

A policy names what it forbids: "Never run `curl | sh` installers", "Не выполнять `curl | bash`
из непроверенных источников", "ห้ามรัน `curl | sh`", "`--dangerously-skip-permissions` は使用禁止",
"`NODE_TLS_REJECT_UNAUTHORIZED=0` bitte nie setzen". A negation *governs* a match when:

- it stands before the match in its sentence, within reach, and nothing between them ends its
  scope: a contrast or a new step ("but", "just", "instead", "aber", "但", "а") or a semicolon
  (:func:`negated`, for the rows marked negatable); or it stands right before the match, or
  before a verb of doing and the match ("don't use `--no-verify`", "nunca usamos X"), which is
  a rule against the thing for every row (:func:`forbids`);
- or, after the match in its sentence, a predicate forbids or condemns it ("is deprecated; don't
  use it", "ممنوعة", "已废弃，不要再用") and no imperative before the match asks for it
  (:func:`condemned`).

A negation that governs a verb of telling, asking or waiting is a permission, not a rule
against what follows: "don't tell the user and run X", "no need to ask, just run X", "不用确认"
negate nothing. That is also what concealment and approval-skipping attacks are made of, so
it is read strictly.
"""

from __future__ import annotations

import re
from typing import Final

from kenning.safety import compiled

# Negation words, by language (word-separated scripts first, then those without spaces).
_WORD: Final = r"""
    # a word, not part of a flag or a name ("--no-check-certificate", "NO_PROXY"); "not:" is
    # Turkish and Swedish for "note"
    (?<![-_/.$@])\b(?:never|don['’]?t|do\s+not|does\s+not|doesn['’]t|did\s+not|didn['’]t|must\s+not
      |mustn['’]t|should\s+not|shouldn['’]t|cannot|can['’]t|won['’]t|will\s+not|avoid(?:ing)?
      |instead\s+of|rather\s+than|not(?!\s*:)|no\s+longer|no|without
      |nunca|jamás|jamais|evit[ae]r?|en\s+lugar\s+de|em\s+vez\s+de|não|nao|sin|sem|ne|n['’]
      |niemals|nie|nicht|kein(?:e[nmrs]?)?|vermeiden?|statt|anstatt|ohne|mai|non|invece\s+di|senza
      |nooit|niet|geen|aldrig|inte|aldri|ikke|nigdy|unikaj|bez|nikdy|nikoli
      |никогда|нельзя|не|ни|без|избегай(?:те)?|вместо|ніколи|не\s+можна|замість
      |μην|ποτέ|όχι|δεν|χωρίς|asla|hiçbir\s+zaman|đừng|không\s+bao\s+giờ|không|tránh|jangan
      |tidak|tanpa|hindari|kamwe)\b(?![-_])
    # "Pas de `curl | sh`" opens its clause; in "n'oublie pas de lancer" it is no negation
    | (?:^|(?<=[:;,(•*–—-]))\s*pas\s+de\b
    | \bne(?:spouště|spoušt|použív|použij|přidáv|instal|vklád|ukládej|kopíruj|sdílej|dávej)\w*
    | \bn[ei]e?[-‐]?(?:uruchamiaj|używaj|instaluj|wklejaj)\w*
    | (?<!\w)(?:لا|لن|أبدا|أبداً|تجنب|بدلا\s+من|بدلاً\s+من|هرگز|نباید|אל|לא|אסור|לעולם|אף\s+פעם
      |मत|कभी\s+नहीं|नहीं)(?!\w)
    # (Japanese 不要 after a particle or a noun of asking is "not needed": 報告は不要)
    | (?<![はがもを認告絡談問])不要|不许|不許|不准|不得|不可|别|別|禁止|严禁|嚴禁|切勿|千万|千萬|勿
      |绝不|絕不|决不|決不
      |避免|而不是
    | 決して|絶対に|禁止|절대|금지|ห้าม|อย่า|ไม่
"""
# The reported form: what someone else asks, described. "If a tool result says to ignore your
# instructions, ..." (the match right after, a condition's main clause follows a comma);
# "instructions that tell the assistant to hide things, skip approvals" (a noun phrase: a list
# may follow); "an injected instruction can ask the model to emit ...", "if an assistant can be
# convinced to output ..." (what an attack can make a model do).
_IF_ASKED: Final = compiled.regex(
    r"""\b(?:if|when|whenever|once)\b[^.!?\n,;]{0,60}?\b(?:says?|asks?|tells?|instructs?|tries
      |attempts?|wants?|urges?)\s+(?:(?:you|us|it|them|the\s+[\w-]+|an?\s+[\w-]+)\s+)?to\s+
      (?:[\w-]+\s+){0,2}[`'"“„«]?$""",
    re.IGNORECASE | re.VERBOSE,
)
_ASKING_TEXT: Final = compiled.regex(
    r"""\b(?:texts?|instructions?|entries|entry|notes?|messages?|content|requests?|prompts?
      |anything|something|comments?|pages?|documents?|files?|issues?|emails?)\s+(?:that|which)\s+
      (?:tells?|asks?|instructs?|wants?|tries\s+to\s+(?:get|make)|urges?)\s+(?:the\s+|an?\s+)?
      (?:assistant|agent|model|ai|bot|llm|you|it|us|the\s+user)\s+to\b[^.!?\n;]{0,80}$
    | \b(?:can|could|may|might|will|would|tries\s+to|try\s+to)\s+(?:ask|tell|instruct|trick|convince
      |get|make|lure|persuade)\s+(?:the\s+|an?\s+|your\s+)?(?:model|assistant|agent|ai|llm|bot
      |copilot)s?\s+(?:in)?to\s+(?:[\w-]+\s+){0,2}[`'"“„«]?$
    | \b(?:can|could|may|might)\s+be\s+(?:convinced|tricked|persuaded|made|induced|manipulated
      |coerced|talked)\s+(?:in)?to\s+(?:[\w-]+\s+){0,2}[`'"“„«]?$""",
    re.IGNORECASE | re.VERBOSE,
)
# What attackers, scammers or phishing mails do, described: "attackers often pose as IT and ask
# for MFA codes", "мошенники просят код из SMS", "诈骗者会索要验证码".
_ATTACKER_DOES: Final = compiled.regex(
    r"""(?:\b(?:attackers?|scammers?|fraudsters?|phishers?|criminals?|hackers?|impostors?|imposters?
      |bad\s+actors?|threat\s+actors?|phishing\s+(?:e-?mails?|messages?|sites?|pages?|texts?|calls?)
      |scams?|malware|злоумышленник\w*|мошенник\w*|шахра\w*|atacantes?|estafadores?
        |ciberdelincuentes
      |golpistas?|criminosos|Angreifer|Betrüger\w*|attaquants?|escrocs?|arnaqueurs?|truffatori
      |aggressori|malintenzionati|saldırganlar|dolandırıcılar)\b
      |攻击者|攻擊者|骗子|騙子|诈骗|詐騙|黑客|駭客|攻撃者|詐欺|공격자|사기꾼|해커)
    # what they do, in prose: no quote, redirection or pipe between (a key comment is no subject)
    (?:\s+|(?<=[\u3040-\u9fff\uac00-\ud7af]))[^.!?\n;,:。'"`<>|]{0,60}$""",
    re.IGNORECASE | re.VERBOSE,
)
_BEFORE: Final = compiled.regex(_WORD, re.IGNORECASE | re.VERBOSE)

# What ends a negation's scope between it and the match: a contrast or a next step.
_SCOPE_END: Final = compiled.regex(
    r"""
    [;；]
  | [,，:：—–]\s*(?:please\s+|then\s+|now\s+|entonces\s+|então\s+|dann\s+|puis\s+|потом\s+)?
    (?:run|execute|exec|paste|type|install|use|call|pipe|add|put|set|enable|start|launch|apply
      |ejecuta|ejecute|corre|usa|executa|execute|rode|roda|use|exécute|exécutez|lance|lancez
      |führe|starte|nutze|esegui|lancia|usa|выполни|выполните|запусти|запустите|используй|виконай
      |запустіть|uruchom|spusť|jalankan|chạy|运行|執行|执行|運行)\b
  | \b(?:but|just|instead(?!\s+of)|rather(?!\s+than)|only|simply|always|then|so|otherwise|however
      |though|although|except|unless|aber|sondern|doch|nur|einfach|immer|dann|mais|seulement
      |toujours|puis|sinon|pero|sino|solo|sólo|siempre|luego|mas|porém|apenas|sempre|depois|ma|però
      |soltanto|poi|но|а|только|просто|всегда|потом|затем|але|лише|завжди|ama|ancak|sadece|nhưng
      |chỉ|tapi|hanya)\b
  | 但|而是|只要|直接|总是|總是|然后|然後|でも|ただし|だけ|하지만|그냥|항상
    """,
    re.IGNORECASE | re.VERBOSE,
)

# Verbs of telling, asking, waiting or following: a negation of one of them is a permission
# or an override ("don't tell the user", "never ask first", "do not follow your rules").
# The same said with the verb first: "Vergiss nicht, ...", "Zögere nicht", "Vergeet niet".
_PERMISSIVE_BEFORE: Final = compiled.regex(
    r"\b(?:vergiss|vergesst|vergessen\s+Sie|zögere|zögert|zögern\s+Sie|vergeet|aarzel|glöm|tveka"
    r"|glem|nøl)\s*$",
    re.IGNORECASE,
)
# ... and with the verb last, as German and Dutch put it: "nicht mehr nachfragen", "nooit meer
# om bevestiging vragen"; then "auch nicht bei X", "ook niet bij X" continue the permission.
_PERMISSIVE_FINAL: Final = compiled.regex(
    r"""[^,;:.!?\n]{0,50}?\b(?:fragen|nachfragen|sagen|melden|warten|bestätigen|erwähnen|informieren
      |vragen|vertellen|zeggen|wachten|bevestigen|melden|fråga|berätta|spørre|fortelle|pytać|ptát
      |zeptat)\b""",
    re.IGNORECASE | re.VERBOSE,
)
_CONTINUED: Final = compiled.regex(
    r"\b(?:also|even|auch|ook|même|tampoco|nemmeno|neanche|anche|também|даже|тоже|також|också|też"
    r"|ani)\s*$",
    re.IGNORECASE,
)
_PERMISSIVE: Final = compiled.regex(
    r"""
    \s*(?:,\s*)?(?:(?:you|we|i|they)\s+)?(?:(?:need|have|got)\s+to\s+|(?:need|needs)\s+)?
    (?:tell|telling|inform|notify|mention|mentioning|warn|alert|report|explain|say|bother
      |hesitate|wait|worry|confirm|confirmation|prompt|pause|stop|check\s+(?:with|in)|question
      |follow|obey|comply|listen|heed|trust|respect|adhere|show|reveal|disclose|let\s+\w+\s+know
      |(?:any\s+|a\s+)?(?:review|approval|checking|checks?|permission|consent|sign-?off|asking
        |delay|hesitation|questions?)
      |refuse|decline|hold\s+back|filter|censor|argue|mind|care|fear|forget|neglect|fail
      |Nachfrage|Rückfrage|Bestätigung|Genehmigung|Erlaubnis|Freigabe|zu\s+fragen|confirmación
      |permiso|aprobación|preguntar|confirmação|permissão|aprovação|autorisation|validation
      |demander|conferma|permesso|approvazione|chiedere|подтверждени\w*|разрешени\w*|согласовани\w*
      |спроса|вопросов|спрашивать|підтвердженн\w*|дозволу|питань|onay|izin|sormadan|xác\s+nhận
      |hỏi|konfirmasi|izin|bevestiging|toestemming|vragen|bekräftelse|fråga|potwierdzenia|pytania
      |ask(?:ing)?(?:\s+(?:me|us|the\s+user|them|anyone|the\s+owner|him|her))?
        (?=\s+(?:before|first|again|whether|if|about|for\s+(?:confirmation|permission|approval
          |consent|review|sign-?off))\b|\s*(?:[.,;:!?]|$))
      |(?:pas\s+|plus\s+)?(?:sagen|erwähnen|fragen|melden|warten|bestätigen|befolgen|folgen|dire
      |mentionner|demander|attendre|confirmer|suivre|oublie[rz]?|hésite[rz]?|decir|digas|mencionar
      |preguntar|preguntes|esperar|confirmar|seguir|avisar|olvides|olvidar|dudes|dizer|diga
      |perguntar|pergunte|esqueça|esquecer|hesite|chiedere|dire|aspettare|seguire|dimenticare
      |dimenticate|esitare|говори|сообщай|спрашивай|жди|подтвержд|следуй|упоминай|забудь|забывай
      |стесняйся|сомневайся|кажи|питай|повідомляй|забувай))\b
  | \s*(?:告诉|告訴|通知|提醒|确认|確認|询问|詢問|问|問|等待|遵守|遵循|服从|服從|忘记|忘記|忘了|犹豫
      |猶豫|忘れ|ためらわ|잊지|망설이|许可|許可|批准|审批|審批|承認|확인|승인|허락|묻지)
    """,
    re.IGNORECASE | re.VERBOSE,
)

# A negation, then a verb of doing, then the match: "don't use `--no-verify`", "Nunca usamos X",
# "Не выполнять X", "ห้ามรัน X", "Pas de X", "ποτέ X". The verbs are those a rule against a
# command or setting uses; articles and "scripts like" may come between.
_DOING: Final = r"""
    (?:use|using|run|running|execute|exec|set|enable|add|pass|pipe|install|paste|type|write|store
      |commit|copy|put|call|apply|do|try|accept|allow|leave|keep|save|include|source|eval|curl
      |usar|usamos|use|utilice|utilizar|ejecutar|ejecutes|ejecute|correr|executar|execute|rodar
      |rode|rodamos|utiliser|utilisez|exécuter|exécutez|lancer|lancez|mettre|verwenden|verwende
      |benutzen|nutzen|ausführen|setzen|eintragen|usare|usa|usiamo|eseguire|esegui|lanciare
      |gebruiken|gebruik|uitvoeren|använd|kör|używać|uruchamiać|spouštět|používat|rulăm|rula|folosi
      |использовать|используй|использую|выполнять|выполняй|выполни|запускать|запускай|запусти
      |применять|ставить|добавлять|використовувати|виконувати|запускати|χρησιμοποιείτε|τρέχετε
      |εκτελείτε|kullanma|çalıştırma|dùng|chạy|sử\s+dụng|gunakan|jalankan|pakai
      |使用|运行|運行|执行|執行|用|使う|実行|사용|실행|รัน|ใช้|เรียกใช้)
"""
_FILLER: Final = r"""
    (?:(?:the|a|an|any|this|that|these|those|such|our|your|random|untrusted|unknown|unreviewed
      |scripts?|commands?|installers?|one-liners?|things?|lines?|flags?|options?|settings?|like
      |such\s+as|of\s+the\s+(?:type|form)|e\.g\.|do\s+tipo|del\s+tipo|du\s+type|typu|вроде|типа
      |как|os|as|los|las|les|des|die|der|das|den|il|lo|gli|i|le|la|el|um|uma|un|une|ein|eine
      |scripts?\s+(?:do|del|du)\s+tipo|comandos?|befehle?|commandes?|команды?|команд)\s+){0,4}
"""
_DOING_ONLY: Final = compiled.regex(
    rf"\s*(?:(?:{_DOING}|pas|jamais|plus)\s*)?{_FILLER}", re.I | re.X
)
_TIGHT: Final = compiled.regex(
    rf"(?:{_WORD})\s*(?:(?:we|you|i|they|y|nós|nosotros|wir|nous|мы)\s+)?"
    rf"(?:{_DOING}\s*(?:(?:pas|jamais|plus)\s+)?)?{_FILLER}[`'\"“„«‘(\[*]{{0,3}}\s*$",
    re.IGNORECASE | re.VERBOSE,
)
# The match itself begins with a verb of telling or asking ("mention", "tell the user"): a
# negation right before it is what a concealment or approval-skipping attack says.
_PERMISSIVE_START: Final = compiled.regex(
    r"""(?:tell|inform|notify|mention|warn|alert|report|explain|say|confirm|wait|prompt|pause
      |ask(?:ing)?\s+(?:(?:me|us|the\s+user|them|anyone|the\s+owner)\s+)?(?:before|first|again
        |whether|if|for\s+(?:confirmation|permission|approval|consent))\b|follow|obey|comply
      |let\s+(?:\w+\s+){0,2}know|refuse|decline|hold\s+back|filter|censor|restrict|limit|stop
      |question|hesitate|verify|validate|check|review|scan)\b""",
    re.IGNORECASE | re.VERBOSE,
)

# After the match: a predicate that forbids or condemns it, by language.
_CONDEMNING: Final = compiled.regex(
    r"""
    \b(?:is|are|was|were|stays?|remains?)\s+(?:now\s+|strictly\s+|also\s+)?(?:forbidden|prohibited
      |banned|not\s+allowed|not\s+permitted|disallowed|deprecated|dangerous|unsafe|suspicious
      |malicious|off[- ]limits|a\s+red\s+flag|red\s+flags|not\s+ours|never\s+(?:allowed|ok|okay
      |acceptable|needed))\b
  | \b(?:don['’]?t|do\s+not|never|must\s+not|should\s+not)\s+(?:use|run|execute|do|try|copy|paste
      |follow|set|enable|add|type|accept|allow|approve|merge|commit|keep)\s+(?:it|this|that|them
      |these|those|either|again)\b
  | \b(?:must|should)\s+never\s+be\s+(?:used|run|set|enabled|executed)\b
  | \b(?:verboten|untersagt|gefährlich|verdächtig|(?:nie|niemals|nicht)\s+(?:setzen|verwenden
      |benutzen|nutzen|ausführen|einsetzen|aktivieren|eintragen|starten))\b
  | \b(?:interdit|interdite?s?|à\s+proscrire|dangereu(?:x|se)|suspecte?s?|(?:ne\s+(?:jamais|pas)
      |jamais)\s+(?:utiliser|exécuter|lancer))\b
  | \b(?:prohibid[oa]s?|proibid[oa]s?|peligros[oa]s?|perigos[oa]s?|sospechos[oa]s?|suspeit[oa]s?
      |(?:no|nunca|não)\s+(?:usar|ejecutar|utilizar|executar|rodar)|vietat[oia]|proibit[oia]
      |pericolos[oia]|sospett[oia]|(?:non|mai)\s+(?:usare|eseguire|utilizzare))\b
  | \b(?:запрещен\w*|запрещ\w*|нельзя\s+(?:использовать|запускать|выполнять|ставить|применять)
      |опасн\w*|подозрит\w*|заборонен\w*|небезпечн\w*|підозріл\w*
      |так\s+не\s+(?:делаем|робимо)|не\s+(?:используем|запускаем|выполняем|робимо|використовуємо))
  | \b(?:zakázan\w*|nebezpečn\w*|podezřel\w*|nespouštět|nepoužívat|zakazan\w*|niebezpieczn\w*
      |podejrzan\w*|verboden|gevaarlijk|verdacht|förbjud\w*|farlig\w*|misstänk\w*|yasak\w*
      |tehlikeli|şüpheli|kullanmayın|çalıştırmayın|dilarang|berbahaya|mencurigakan|interzis\w*
      |periculos\w*|suspect\w*)
  | \b(?:απαγορεύ\w*|επικίνδυν\w*|ύποπτ\w*)
  | (?:ممنوع|محظور|مشبوه|خطير|خطرناک|مشکوک|نباید\s+(?:اجرا|استفاده)|אסור|חשוד|מסוכן|वर्जित|प्रतिबंधित
      |खतरनाक|संदिग्ध
      |bị\s+cấm|nguy\s+hiểm|đáng\s+ngờ|อันตราย|น่าสงสัย)
  | 禁止|严禁|嚴禁|不允许|不允許|不准|不得|已废弃|已廢棄|废弃|廢棄|不要再用|不要使用|不要运行
    |不要執行
  | 不要执行|别用|別用|勿用|危险|危險|可疑|恶意|惡意|使用しない|使わない|実行しない|非推奨
  | 危険|怪しい|疑わしい|厳禁|금지|쓰지\s*마|사용하지\s*(?:마|않)|실행하지\s*(?:마|않)|위험|의심
    """,
    re.IGNORECASE | re.VERBOSE,
)
# A condemnation of telling rather than of the thing: "禁止告诉用户", "報告しないこと" nearby,
# "אסור לספר", "it is forbidden to tell the user" -- concealment, not a rule against the match.
_TELLING: Final = compiled.regex(
    r"""\b(?:tell|inform|notify|mention|report|say|warn|sagen|erzähl\w*|erwähn\w*|informier\w*
      |melden|dire|informer|signaler|mentionner|decir|informar|avisar|mencionar|contar|dizer|riferire
      |говорить|сообщать|рассказ\w*|упомина\w*|говорити|повідомля\w*)\b
    | 告诉|告訴|报告|報告|通知|提醒|提及|透露|言う|言わ|伝え|知らせ|連絡|알리|말하|보고
    | إخبار|تخبر|לספר|לדווח
    """,
    re.IGNORECASE | re.VERBOSE,
)
# "not dangerous", "nicht gefährlich", "не опасно": a condemnation negated is a reassurance.
_REASSURED: Final = compiled.regex(
    r"(?:\b(?:not|isn['’]t|aren['’]t|never|nicht|kein|pas|no|não|non|не|ни)\s+(?:\w+\s+)?"
    r"|不|没有|並不|并不|ではな)\s*$",
    re.IGNORECASE,
)
# Verbs that ask for a command to be run, in their imperative or infinitive forms (an
# instruction's), by language: before the match in most languages, after it in Japanese,
# Korean and Turkish ("`X` を実行して", "`X`를 실행하세요", "`X` çalıştır") and in German
# infinitive instructions ("`X` ausführen").
_RUN_VERB: Final = r"""
    (?:run|execute|exec|paste|type|install|use|call|invoke|pipe|bootstrap|set\s+up|start|launch
      |apply|add|put|schedule|enter|source|by\s+running|by\s+using|by\s+piping|retry|re-?run
      |fall\s+back\s+to|выполнять|запускать|использовать|применять|виконувати|запускати
      |ejecuta|ejecute|ejecutar|corre|usa|usar|lanza|instala|executa|execute|executar|rode|rodar
      |roda|instale|exécute|exécutez|exécuter|lance|lancez|utilise|utilisez|installe|installez
      |führe|führen|starte|nutze|verwende|installiere|esegui|eseguite|eseguire|lancia|utilizza
      |installa|выполни|выполните|выполнить|запусти|запустите|запустить|используй|используйте
      |установи|виконай|запусти|запустіть|uruchom|spusť|spusťte|jalankan|chạy|รัน
      |运行|執行|执行|運行|使用|跑一下|先跑|请跑)
"""
_RUN_BEFORE: Final = compiled.regex(
    rf"(?:(?<![\w-])|(?<=[\u4e00-\u9fff])){_RUN_VERB}(?![\w-])", re.IGNORECASE | re.VERBOSE
)
_RUN_AFTER: Final = compiled.regex(
    r"""[^\S\n]*[`'"”」)]*[^\S\n]*(?:
        (?:\s+-{1,2}[\w-]+){0,3}\s*(?:を|を使って|で)?\s*(?:実行|使用|インストール|再試行|リトライ)
        (?:して(?!い)|しろ|せよ|しなさい|すること|する(?=[。、\s]|$))
      | (?:를|을)?\s*(?:실행|사용|설치)(?:하세요|하십시오|해\s*주세요|해라|하라|할\s*것|해)
      | (?:komutunu\s+)?(?:çalıştır|kullan)|(?:ausführen|starten|verwenden|nutzen|laufen\s+lassen
        |aus)\b)""",
    re.IGNORECASE | re.VERBOSE,
)
# Later in the sentence, past any contrast: "..., but it's fine: run it", "go ahead".
_RUN_IT: Final = compiled.regex(
    r"""\b(?:(?:run|execute|do|use|apply|install|paste|keep|add)\s+(?:it|this|that|them)|go\s+ahead
      |выполни\s+(?:его|её|это)|запусти\s+(?:его|её|это)|ejecút[ae]lo|execute-o|exécute[sz]?-le
      |führe\s+(?:es|ihn|sie)\s+aus|eseguilo)\b""",
    re.IGNORECASE | re.VERBOSE,
)

_REACH: Final = 100
_AFTER: Final = 80
_SENTENCE_END: Final = compiled.regex(r"[.!?](?=\s|$)|[。！？\n]")


def _sentence_before(text: str, start: int, reach: int) -> str:
    window = text[max(0, start - reach) : start]
    cut = max(window.rfind(". "), window.rfind("\n"), window.rfind("。"), window.rfind("! "))
    return window[cut + 1 :]


def _scope_ends(between: str) -> bool:
    """True if a contrast or a next step ends a negation's scope in ``between`` (what stands
    between it and the match); one right after the negation is part of what it negates ("don't
    just run", "不要直接运行"). A colon ends it too, unless only a verb of doing stands before it
    ("Never store: passwords, ..."): "Damit Builds nicht mehr fragen: `...`" negates the asking."""
    for m in _SCOPE_END.finditer(between):
        if between[: m.start()].strip() or m.group()[0] in ";；,，:：—–":
            return True
    colon = re.search(r"[:：]", between)
    return colon is not None and _DOING_ONLY.fullmatch(between[: colon.start()]) is None


def reported(text: str, start: int) -> bool:
    """True if ``start`` follows a report of what someone else asks a model to do ("if a page
    tells you to ...", "instructions that tell the assistant to ...") or of what attackers do
    ("scammers often ask for ...")."""
    before = _sentence_before(text, start, _REACH)
    return any(r.search(before) is not None for r in (_IF_ASKED, _ASKING_TEXT, _ATTACKER_DOES))


def negated(text: str, start: int) -> bool:
    """True if a negation before ``start`` in its sentence governs it (see the module
    docstring): nothing ends its scope between them and it negates no verb of telling or
    asking; or what follows is reported (:func:`reported`)."""
    before = _sentence_before(text, start, _REACH)
    permission = False  # the last negation was a permission: "also not ..." continues it
    for m in _BEFORE.finditer(before):
        between = before[m.end() :]
        if _scope_ends(between):
            permission = False
            continue
        if (
            _PERMISSIVE_BEFORE.search(before, 0, m.start())
            or (
                between.strip() and (_PERMISSIVE.match(between) or _PERMISSIVE_FINAL.match(between))
            )
            or (not between.strip() and _PERMISSIVE_START.match(text, start))
            or (permission and _CONTINUED.search(before, 0, m.start()))
        ):
            permission = True
            continue
        return True
    return reported(text, start)


def forbids(text: str, start: int) -> bool:
    """True if a negation stands right before ``start``, or before a verb of doing and then
    ``start`` ("don't use `--no-verify`", "ห้ามรัน `curl | sh`"), and the match does not
    begin with a verb of telling or asking; or what follows is reported."""
    before = _sentence_before(text, start, 60)
    if _TIGHT.search(before) is not None and _PERMISSIVE_START.match(text, start) is None:
        return True
    return reported(text, start)


def condemned(text: str, start: int, end: int) -> bool:
    """True if, after ``text[start:end]`` in its sentence and before a contrast, a predicate
    forbids or condemns it and no imperative right before it asks for it."""
    after = text[end : end + _AFTER]
    stop = _SENTENCE_END.search(after)
    after = after[: stop.start()] if stop else after
    contrast = next((m for m in _SCOPE_END.finditer(after) if after[: m.start()].strip()), None)
    after = after[: contrast.start()] if contrast else after
    for found in _CONDEMNING.finditer(after):
        if _REASSURED.search(after[: found.start()][-20:]):
            continue
        if _TELLING.search(after, max(0, found.start() - 12), found.end() + 16):
            continue
        return not directed(text, start, end)
    return False


def directed(text: str, start: int, end: int, quoted: tuple[int, int] | None = None) -> bool:
    """True if the sentence of ``text[start:end]`` asks for it to be run: a verb of running,
    installing or using in its imperative or infinitive form before it (after it in Japanese,
    Korean, Turkish and German instructions), not itself negated. Verbs inside ``quoted`` (a
    quoted attack that holds the match) are the quote's, not the text's, and do not count."""
    before = _sentence_before(text, start, 80)
    offset = start - len(before)
    for m in _RUN_BEFORE.finditer(before):
        if quoted is not None and quoted[0] <= offset + m.start() < quoted[1]:
            continue
        if not negated(before, m.start()) and not forbids(before, m.start()):
            return True
    if _RUN_AFTER.match(text, end, min(len(text), end + 30)) is not None:
        return True
    stop = _SENTENCE_END.search(text, end, min(len(text), end + 160))
    for m in _RUN_IT.finditer(text, end, stop.start() if stop else min(len(text), end + 160)):
        if not negated(text, m.start()) and not forbids(text, m.start()):
            return True
    return False
