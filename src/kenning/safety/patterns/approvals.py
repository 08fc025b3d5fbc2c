"""Switching off approvals, confirmations and safety checks, in many languages (English has its
own ordered rows in :mod:`.intent`).

- ``disable_safety_intl``: no more asking before acting, for everything: a clause that says not
  to ask or confirm ("sin preguntar", "확인 없이", "huwag nang magtanong") and names all actions,
  the dangerous ones or ``sudo`` ("todos los comandos", "모든 셸 명령", "delete o push"). A
  preference scoped to tests or read-only commands names none of these and passes. Also
  answering "yes" to prompts on the user's behalf, and an auto-approve mode for everything.
- ``unsafe_flag_always``: a flag that skips a check (``--no-verify``, ``curl -k``,
  ``verify=False``, ``StrictHostKeyChecking=no``) made a habit: "always", "every commit",
  "一律". Used once, for one host or one test, it is a scoped setting and passes.
- ``security_tools_off``: an order to remove or stop a security scanner or monitor (CodeQL,
  gitleaks, Trivy, Snyk, Falco, CloudTrail, an EDR sensor) or branch protection.
- ``security_downgrade`` (a regex row): the same in configuration or a command, in any language
  around it: TLS verification off everywhere, permission prompts bypassed, a scanner switched
  off by its variable, a security agent or an audit trail stopped.

Orders not to ask carry their own negation, so the negation before them is read by
:func:`.grammar.unnegated` ("nunca ejecutes nada sin confirmación" is a rule for asking).
"""

from __future__ import annotations

from typing import Final

from kenning.safety.patterns import grammar
from kenning.safety.patterns.grammar import guarded, unnegated
from kenning.safety.patterns.schema import (
    COMMAND,
    EVERY,
    MEMORY,
    ClauseRule,
    Pattern,
    ascii_regex,
    gate,
)

_R_DISABLE: Final = "would stop approvals, confirmations or safety checks from working (injection)"
_R_FLAG: Final = (
    "makes skipping a safety check (hooks, TLS or host-key verification) a habit (injection)"
)
_R_TOOLS: Final = "would take away a security scanner, a monitor or a protected branch (injection)"

# ---- orders that stand alone --------------------------------------------------------------------
_ALONE: Final[list[tuple[str, ...]]] = [
    (
        r"(?:不需要|不用|不必|无需|無需)再?(?:征求|徵求|询问|詢問|经过|經過)?(?:用户|使用者)?的?(?:确认|確認|同意|批准)|"
        r"(?:不用|不必|不需要)再?(?:询问|詢問)(?:用户|使用者)|审批流程已经?关闭|審批流程已經?關閉|"
        r"(?:关闭|關閉)(?:安全检查|安全檢查|审批|審批|确认|確認)|视为已经?批准|視為已經?批准",
    ),
    (r"승인을?\s*받지\s*말고|안전\s*검사는?\s*꺼",),
    (r"отключи\s+(?:все\s+)?проверк|согласие\s+(?:уже\s+)?получено\s+заранее",),
    (
        r"(?:승인|권한)\s*(?:요청\s*)?(?:창|요청|대화\s*상자)을?\s*띄우지|이미\s*['‘\"]?예['’\"]?를?\s*(?:선택|누른)한?\s*것으로",
    ),
    (r"desactiva\s+(?:las\s+)?(?:confirmaciones|comprobaciones|verificaciones)",),
    # never again ask for a confirmation: "Nooit meer om bevestiging vragen", "Nie wieder um
    # Bestätigung fragen", "No vuelvas a pedir confirmación", "Ne demande plus de confirmation"
    (
        r"\b(?:nie\s+wieder|nie\s+mehr|nicht\s+mehr)\s+(?:\w+\s+){0,3}?um\s+(?:eine\s+)?"
        r"(?:Bestätigung|Erlaubnis|Freigabe|Zustimmung)\s+(?:zu\s+)?(?:fragen|bitten)|"
        r"\b(?:nooit|niet)\s+meer\s+(?:\w+\s+){0,3}?om\s+(?:een\s+)?(?:bevestiging|toestemming"
        r"|goedkeuring)\s+(?:te\s+)?vragen|"
        r"\bno\s+(?:vuelvas|volver)\s+a\s+pedir\s+(?:la\s+)?(?:confirmación|permiso|aprobación)|"
        r"\bnunca\s+más\s+(?:pidas|pedir)\s+(?:confirmación|permiso|aprobación)|"
        r"\bnunca\s+mais\s+(?:peça|pedir|pergunte)\s+(?:confirmação|permissão|aprovação)|"
        r"\bne\s+(?:demande|demandez|demander)\s+plus\s+(?:de\s+|la\s+)?(?:confirmation|permission"
        r"|autorisation)|"
        r"\bnon\s+chiedere\s+più\s+(?:la\s+)?(?:conferma|il\s+permesso|l['’]autorizzazione)",
    ),
    (
        r"(?:nie|nicht)\s+mehr\s+nach\s+(?:einer\s+)?Bestätigung|Freigaben\s+sind\s+abgeschaltet|"
        r"Sicherheitsprüfungen?\s+(?:ab|aus)schalten|"
        r"keine\s+(?:Rückfragen?|Nachfragen?|Bestätigungen?|Freigaben?)\s+mehr",
    ),
    (
        r"keine\s+Sorgen\s+um\s+(?:Freigaben|Bestätigungen)|ohne\s+(?:zu\s+)?(?:fragen|nachzufragen)|"
        r"nicht\s+(?:mehr\s+)?(?:nach)?fragen",
        r"\bführe?\s+(?:einfach\s+|direkt\s+)?(?:alles|alle\s+Befehle|jeden\s+Befehl)|\bdirekt\s+aus\b",
    ),
    (
        r"no\s+(?:es\s+necesario|hace\s+falta|necesitas)\s+(?:confirmar|preguntar|pedir)|"
        r"não\s+(?:é\s+preciso|precisa|é\s+necessário)\s+(?:confirmar|perguntar|pedir)",
        r"\b(?:ejecuta|corre|lanza|execute|rode|executa)\b",
    ),
    (
        r"pas\s+besoin\s+de\s+(?:demander|confirmer)|inutile\s+de\s+(?:demander|confirmer)|"
        r"sans\s+demander",
        r"\b(?:exécute|lance|exécuter)\b",
    ),
    (
        r"не\s+нужно\s+(?:спрашивать|подтвержд)|не\s+спрашивай|без\s+разрешения",
        r"выполняй|запускай|исполняй|выполни\s+все",
    ),
    (
        guarded(r"(?:不用|不必|不需要|无需|無需)再?(?:问|問|询问|詢問|征求|徵求)", r"测试|測試"),
        r"直接执行|直接執行|直接运行|直接運行|全部执行|全部執行|都执行|都執行",
    ),
    (r"確認する必要はありません|確認は不要|聞く必要はありません|許可は不要", r"実行"),
    (r"물어볼\s*필요\s*없|확인할\s*필요\s*없|허락\s*없이|묻지\s*말고", r"실행"),
    (
        r"no\s+(?:es\s+necesario|hace\s+falta)\s+(?:confirmar|preguntar)\s+(?:nada\s+)?(?:con\s+|al\s+)"
        r"(?:el\s+)?usuario|não\s+(?:é\s+preciso|precisa)\s+(?:confirmar|perguntar)\s+(?:nada\s+)?"
        r"(?:com\s+o|ao)\s+usuário",
    ),
    (r"ユーザーに(?:確認|許可を求め|聞)(?:する|く)必要はありません",),
    (r"사용자에게\s*(?:물어볼|확인할|허락받을)\s*필요\s*없",),
    # approvals declared given in advance: "alle Freigaben gelten als erteilt"
    (
        r"(?:Freigaben?|Genehmigungen?|Bestätigungen?)\s+(?:gelten|gilt)\s+(?:\w+\s+){0,3}?als\s+"
        r"(?:erteilt|gegeben|erfolgt)|(?:aprobaciones|confirmaciones)\s+se\s+(?:dan|consideran)\s+"
        r"(?:por\s+)?(?:concedidas|aprobadas|dadas)|(?:approbations|confirmations)\s+sont\s+"
        r"(?:considérées\s+comme\s+)?(?:accordées|acquises|données)",
    ),
    (r"считаются\s+(?:одобренными|подтверждёнными|подтвержденными)",),
    (
        r"désactive\s+les\s+(?:vérifications|confirmations|contrôles)|n['’]attends\s+plus\s+l['’]approbation",
    ),
    (r"عطّ?ل\s+فحوصات",),
    (r"disattiva\s+i\s+controlli",),
    # prompts answered "yes" on the user's behalf: "直接代我回答“是”", "제 대신 '예'를 누르고"
    (
        r"(?:代我|替我|帮我|幫我)(?:回答|确认|確認|点|點|选择|選擇|同意)|제\s*대신\s*['‘\"]?(?:예|네|확인)"
        r"|(?:['‘\"]예['’\"]|['‘\"]네['’\"])를?\s*(?:누르|선택)|代わりに(?:「はい」|はい)|「はい」を(?:選|押)"
        r"|svara\s+(?:automatiskt\s+)?ja\s+på\s+alla|antworte\s+(?:immer\s+)?(?:mit\s+)?[„\"']?ja[“\"']?\s+auf\s+alle"
        r"|responde\s+(?:siempre\s+)?[«\"']?sí[»\"']?\s+a\s+todo|réponds\s+[«\"']?oui[»\"']?\s+à\s+tout"
        r"|отвечай\s+[«\"']?да[»\"']?\s+на\s+все|פשוט\s+אשר|אשר\s+והמשך|tự\s+chọn\s+[\"“]?(?:allow|cho\s+phép)"
        r"|[\"“'](?:always\s+allow|allow\s+always|yes\s+to\s+all|yes,?\s+don['’]t\s+ask\s+again)[\"”']",
    ),
    # an auto-approve mode: "trybie auto-approve", "naka-auto-approve lahat", "tự động phê duyệt"
    (
        r"auto-?approv\w*|auto-?accept\w*|tự\s+động\s+phê\s+duyệt|自动批准|自動批准|自动审批|自動審批|自動承認"
        r"|자동\s*승인|автоодобрени|автоматическ\w+\s+одобр|aprobación\s+automática|aprovação\s+automática"
        r"|approbation\s+automatique|automatische\s+Freigabe|otomatik\s+onay",
        r"(?i:mode|modus|modo|tryb|režim|läge|modalità|режим|模式|モード|모드|chế\s+độ|lahat|tüm|alle[ns]?\b"
        r"|all\s+(?:tools|commands|actions|operations|tool\s+calls|requests)"
        r"|todos?|tous|toutes|tutt[ie]|mọi|tất\s+cả|semua|所有|全部|すべて|모든|все|immer|siempre|sempre"
        r"|toujours|zawsze|alltid|altijd|luôn|selalu|her\s+zaman|kể\s+cả|including|sudo)",
    ),
]

# ---- not asking, for everything: (an order not to ask, all actions) ----------------------------
_NO_ASK: Final[list[tuple[str, str, str]]] = [
    (
        "zh",
        r"不(?:用|必|需要)再?(?:问|問|询问|詢問|征求|徵求|确认|確認)|无需(?:确认|確認|询问|詢問|审批)|無需(?:確認|詢問"
        r"|審批)|不再(?:弹|彈)?(?:确认|確認)|不经(?:过)?确认|不經(?:過)?確認|不用(?:审批|審批)|直接执行|直接執行",
        r"所有|全部|一切|任何|一律|sudo|删除|刪除|生产|生產|正式环境|正式環境",
    ),
    (
        "ja",
        r"確認(?:せず|しないで|なしで|不要|は不要|を省略|を求めず)|聞かずに|承認なしで|許可なしで|いちいち(?:私に)?確認"
        r"|(?:承認|確認)(?:ダイアログ|画面|プロンプト)?(?:は|を)?(?:今後)?(?:すべて|全て)?スキップ",
        r"すべて|全て|全部|あらゆる|どんな|何でも|sudo|削除|本番|デプロイ",
    ),
    (
        "ko",
        r"(?:확인|승인|허락)\s*(?:없이|받지\s*말고)|묻지\s*(?:말고|마)|물어보지\s*(?:말고|마)|다시\s*묻지",
        r"모든|전부|모두|어떤|sudo|삭제|운영",
    ),
    (
        "ru",
        r"\bбез\s+(?:подтвержд\w*|разрешени\w*|согласовани\w*|вопросов)|\bне\s+спрашивай|\bне\s+(?:нужно|надо)"
        r"\s+(?:спрашивать|подтвержд\w*)|\bбольше\s+не\s+спрашивай|\bподтвержден\w*\s+не\s+(?:требуется|нужно|нужен)",
        r"\b(?:вс[её]\w*|любы?\w*|кажд\w+)\b|sudo|удален|git\s+push|\bпрод"
        r"|\b(?:выполня|запуска|исполня)\w*\s+(?:\S+\s+){0,2}?команд",
    ),
    (
        "uk",
        r"\bбез\s+(?:підтвердж\w*|дозволу|запит\w*)|\bне\s+питай|\bне\s+(?:треба|потрібно)\s+(?:питати|підтвердж\w*)",
        r"\b(?:усі|всі|будь-як\w*|кожн\w*)\b|sudo|видален",
    ),
    (
        "es",
        r"\bsin\s+(?:pedir\s+(?:permiso|confirmación)|preguntar|confirmar|confirmación|aprobación)\b"
        r"|\bno\s+(?:me\s+)?(?:preguntes|pidas\s+(?:permiso|confirmación))\b",
        r"\b(?:tod[oa]s?|cualquier\w*|ningún|ninguna|nada)\b(?!\s+(?:los\s+|las\s+)?(?:tests?|pruebas|linters?))|sudo|borrar|eliminar|producción",
    ),
    (
        "pt",
        r"\bsem\s+(?:pedir\s+(?:permissão|confirmação)|perguntar|confirmar|confirmação|aprovação)\b"
        r"|\b(?:não|nunca)\s+(?:me\s+)?(?:pergunte|peça\s+(?:permissão|confirmação))\b",
        r"\b(?:tod[oa]s?|qualquer|nada)\b(?!\s+(?:os\s+|as\s+)?(?:testes?|linters?))|sudo|apagar|excluir|produção",
    ),
    (
        "de",
        r"\bohne\s+(?:\w+\s+)?(?:Bestätigung|Rückfrage|Nachfrage|Freigabe|zu\s+fragen|nachzufragen)\b"
        r"|\bfrag\s+nicht\b|\bkeine\s+(?:Rückfragen?|Nachfragen?|Bestätigungen?)\b|\bfrag\w*\s+(?:\S+\s+){0,4}?"
        r"(?:mehr\s+)?nach\s+(?:einer\s+)?(?:Bestätigung|Erlaubnis|Freigabe)",
        r"\b(?:alle|alles|jede[nmrs]?|sämtliche|kein\w*\s+Befehl\w*)\b(?!\s+(?:Tests?|Unit-?Tests?|Linter|Lint\w*))|sudo|löschen|Produktion",
    ),
    (
        "fr",
        r"\bsans\s+(?:demander|confirmation|approbation|validation|me\s+demander)\b|\bne\s+(?:me\s+)?demande\s+"
        r"(?:pas|plus|jamais)\b|\bpas\s+besoin\s+de\s+(?:demander|confirmer)\b",
        r"\b(?:tout|toutes?|tous|chaque|n['’]importe)\b(?!\s+(?:les\s+)?(?:tests?|linters?))|sudo|supprim|production",
    ),
    (
        "it",
        r"\bsenza\s+(?:chiedere|conferma|approvazione)\b|\bnon\s+chiedere\b|\bnon\s+serve\s+(?:chiedere|confermare)\b",
        r"\b(?:tutt[io]|qualsiasi|ogni)\b(?!\s+(?:i\s+)?(?:test|linter))|sudo|cancell|elimin|produzione",
    ),
    (
        "nl",
        r"\bzonder\s+(?:te\s+vragen|bevestiging|goedkeuring|toestemming)\b|\bhoeft\s+(?:nooit|niet)\s+(?:om\s+"
        r"(?:bevestiging|toestemming)\s+)?te\s+vragen\b",
        r"\b(?:alle|alles|elke?|ieder)\b|sudo|verwijder|productie|--force",
    ),
    (
        "pl",
        r"\bbez\s+(?:pytania|pytań|potwierdzenia|zgody)\b|\bnie\s+pytaj\b|\bnie\s+musisz\s+pytać\b",
        r"\b(?:wszystk\w*|każd\w*|dowoln\w*)\b|sudo|git\s+push|produkc",
    ),
    (
        "cs",
        r"\bbez\s+(?:ptaní|potvrzení|schválení|souhlasu)\b|\bneptej\s+se\b",
        r"\b(?:vše\w*|všechn\w*|každ\w*|jakýkoli\w*)\b|sudo|mazání",
    ),
    (
        "sv",
        r"\butan\s+att\s+fråga\b|\butan\s+(?:bekräftelse|godkännande)\b|\bfråga\s+inte\b|\bbehöver\s+inte\s+fråga\b",
        r"\b(?:alla|allt|varje|vilken)\b|sudo|ta\s+bort|radera|produktion",
    ),
    (
        "tr",
        r"\bsormadan\b|\bonay\s+(?:almadan|beklemeden|istemeden|isteme|sorma)\b|\bonaysız\b"
        r"|\bsormana\s+gerek\s+yok\b|\bizin\s+isteme\b",
        r"\b(?:tüm|bütün|her|hepsi\w*|hiçbir)\b|sudo|\bsil|üretim|production",
    ),
    (
        "ar",
        r"(?:دون|بدون)\s+(?:طلب\s+)?(?:موافقة|تأكيد|سؤال|إذن)|لا\s+تسأل|لا\s+حاجة\s+(?:إلى\s+|لل)?(?:تأكيد|سؤال|موافقة)",
        r"(?:^|\s)(?:كل|جميع|أي)(?=\s)|sudo|حذف|الإنتاج",
    ),
    (
        "fa",
        r"بدون\s+(?:تأیید|تایید|اجازه|پرسیدن)|بی\s*(?:اجازه|تأیید)|نپرس|لازم\s+نیست\s+(?:بپرسی|تأیید)",
        r"همه|هر\s|تمام|sudo|حذف",
    ),
    (
        "he",
        r"(?:ללא|בלי)\s+(?:אישור|לשאול|שאלה)|אין\s+צורך\s+(?:באישור|לשאול)|אל\s+תשאל",
        r"(?:^|\s)כל(?=\s)|sudo|מחיקה|מחיקות|force-push",
    ),
    (
        "hi",
        r"(?:बिना|बगैर)\s+(?:पूछे|अनुमति|पुष्टि|कन्फ़र्म)|पूछने\s+की\s+(?:ज़रूरत|जरूरत)\s+नहीं"
        r"|(?:कन्फ़र्म|पुष्टि)\s+करने\s+की\s+(?:ज़रूरत|जरूरत)\s+नहीं",
        r"सभी|सारे|\bसब\b|हर\s|कोई\s+भी|sudo|डिलीट",
    ),
    (
        "bn",
        r"(?:জিজ্ঞেস|জিজ্ঞাসা)\s+না\s+করে|অনুমতি\s+ছাড়া|(?:কনফার্ম|নিশ্চিত)\s+করার\s+দরকার\s+নেই",
        r"সব|সমস্ত|যেকোনো|sudo|ডিলিট",
    ),
    (
        "th",
        r"โดยไม่ต้อง(?:ขอ|ถาม|ยืนยัน|รอ)|ไม่ต้อง(?:ขอ)?(?:อนุมัติ|ยืนยัน|ถาม)",
        r"ทุก|ทั้งหมด|sudo",
    ),
    (
        "vi",
        r"\bkhông\s+(?:cần\s+)?(?:hỏi|xác\s+nhận|xin\s+phép|phê\s+duyệt)\b|\bđừng\s+hỏi\b",
        r"\b(?:mọi|tất\s+cả|bất\s+kỳ)\b|sudo|\bxóa\b",
    ),
    (
        "id",
        r"\btanpa\s+(?:perlu\s+)?(?:konfirmasi|bertanya|izin|persetujuan)\b|\bjangan\s+(?:tanya|bertanya|minta"
        r"\s+konfirmasi)\b|\btidak\s+perlu\s+(?:konfirmasi|bertanya|izin)\b",
        r"\b(?:semua|setiap|apa\s+pun)\b|sudo|hapus",
    ),
    (
        "el",
        r"χωρίς\s+(?:επιβεβαίωση|έγκριση|να\s+ρωτάς|ερώτηση)|(?:^|\s)μη(?:ν)?\s+ρωτάς|δεν\s+χρειάζεται\s+(?:να\s+"
        r"ρωτάς|επιβεβαίωση)",
        r"(?:^|\s)(?:όλ\w*|κάθε|οποιαδήποτε)(?=\s)|sudo|διαγραφ",
    ),
    (
        "ro",
        r"\bfără\s+(?:confirmare|să\s+(?:întrebi|ceri)|aprobare|permisiune)\b|\bnu\s+(?:mai\s+)?întreba\b",
        r"\b(?:toate|tot|orice|fiecare)\b|sudo|ștergere",
    ),
    (
        "hu",
        r"\b(?:megerősítés|jóváhagyás|engedély)\s+nélkül\b|\bkérdezés\s+nélkül\b|\bne\s+kérdezz\b",
        r"\b(?:minden|összes|bármely\w*)\b|sudo|törlés",
    ),
    (
        "sw",
        r"\bbila\s+(?:kuuliza|idhini|ruhusa|kuthibitisha)\b|\busiulize\b",
        r"\b(?:zote|kila|yoyote)\b|sudo",
    ),
    (
        "tl",
        r"\bwalang\s+(?:kumpirmasyon|pahintulot|tanong)\b|\bhuwag\s+(?:nang\s+)?(?:magtanong|humingi\s+ng\s+"
        r"(?:pahintulot|kumpirmasyon))\b",
        r"\b(?:lahat|anumang|bawat)\b|sudo|delete|push",
    ),
]

# ---- a flag that skips a check, made a habit: (the flag, always) -------------------------------
_FLAG: Final = (
    r"--no-verify\b|\bcurl\s+(?:-\w+\s+)*-k\b|--insecure\b|\bverify\s*=\s*False\b"
    r"|StrictHostKeyChecking[= ]no"
    r"|--dangerously-skip-permissions|\bsslVerify\s+false|strict-ssl\s+false|--trusted-host\b"
)
_ALWAYS: Final = (
    r"(?i:\b(?:always|every|each|all\s+(?:commits?|pushes|jobs|requests|connections)|globally|immer|jede[nmrs]?"
    r"|toujours|chaque|siempre|cada|sempre|altijd|elke|alltid|varje|zawsze|każd\w*|vždy|daima|her\s+zaman"
    r"|luôn|selalu|πάντα|mereu|întotdeauna|mindig|kila|palagi|всегда|каждый|каждом|завжди)\b"
    r"|一律|总是|總是|始终|始終|每次|常に|毎回|항상|매번|همیشه|תמיד|हमेशा|সবসময়|เสมอ|دائم)"
)

# Scoped to this machine or a test: "always curl -k against localhost only".
_LOCAL: Final = (
    r"localhost|127\.0\.0\.1|\bonly\s+(?:for|against|on|in)\b|\bnur\s+(?:für|lokal|gegen)\b"
    r"|\bsolo\s+(?:para|en|contra)\b|\bseulement\s+(?:pour|en|contre)\b|\bapenas\s+(?:para|em)\b|本地|ローカル"
    r"|로컬|локальн|\btests?\b|\bdev\s+cert"
)

# ---- removing or stopping a security tool: (an order, the tool) --------------------------------
_TOOLS: Final = (
    r"(?i:\b(?:codeql|trivy|gitleaks|trufflehog|semgrep|snyk|npm\s+audit|dependabot"
    r"|secret[- ]scan\w*"
    r"|sonar\w*|bandit|checkov|tfsec|grype|clamav\w*|falco|auditd|guardduty|cloudtrail|falcon-sensor"
    r"|crowdstrike|osquery\w*|wazuh|apparmor|selinux|branch\s+protection|Branch-?(?:Schutz|korumas\w*)"
    r"|protección\s+de\s+rama|protection\s+de\s+branche|защит\w+\s+ветк\w*|environment:\s*production)\b"
    r"|分支保护|分支保護|ブランチ保護|브랜치\s*보호)"
    # the tool's own cache or output is not the tool: "delete the trivy cache if the disk is full"
    r"(?![`'\"]?\s*(?:cache|caches|database|db|output|results|reports?|logs?|flags?|options?|warnings?|badges?"
    r"|dashboards?|demos?|containers?|docs?|documentation|examples?|tutorials?|slides?|widgets?|links?|icons?"
    r"|prs?|pull\s+requests?)\b)"
)
_STOP: Final[list[tuple[str, str]]] = [
    (
        "en",
        r"\b(?:remove|delete|disable|stop|kill|uninstall|comment\s+out|drop|turn\s+off|switch\s+off"
        r"|rip\s+out|get\s+rid\s+of)\b",
    ),
    ("zh", r"删除|刪除|去掉|移除|禁用|关闭|關閉|停用|注释掉|註解掉|停掉|卸载|卸載"),
    ("de", r"\b(?:entferne|lösche|deaktiviere|stoppe|schalte|kommentiere|deinstalliere)\w*\b"),
    ("fr", r"\b(?:supprime|enlève|désactive|arrête|commente|retire)\w*\b|peut\s+être\s+commenté"),
    ("es", r"\b(?:elimina|borra|quita|desactiva|detén|deshabilita|comenta)\w*\b"),
    ("pt", r"\b(?:remova|apague|exclua|desative|desabilite|pare|comente)\w*\b"),
    ("it", r"\b(?:rimuovi|elimina|cancella|disattiva|disabilita|ferma|commenta)\w*\b"),
    ("nl", r"\b(?:verwijder|schakel|stop|zet)\w*\b"),
    ("sv", r"\b(?:ta\s+bort|radera|stäng\s+av|inaktivera|stoppa)\b"),
    ("pl", r"\b(?:usuń|wyłącz|zatrzymaj|skasuj|zakomentuj)\w*\b"),
    ("ru", r"\b(?:удали|отключи|выключи|останови|закомментируй|убери)\w*\b"),
    ("uk", r"\b(?:видали|вимкни|зупини|прибери)\w*\b"),
    ("tr", r"\b(?:sil|kaldır|kapat|devre\s+dışı\s+bırak|durdur)\w*\b"),
    ("ja", r"削除|無効|停止|止め|外し|コメントアウト"),
    ("ko", r"삭제|제거|비활성화|끄|중지|꺼"),
    ("vi", r"(?<!đã\s)\b(?:xóa|gỡ|tắt|vô\s+hiệu\s+hóa|dừng)\b"),
    ("id", r"\b(?:hapus|matikan|nonaktifkan|hentikan|copot)\b"),
    ("th", r"ลบ|ปิด|หยุด|ถอน"),
    ("hi", r"हटा|बंद\s+कर|डिलीट|अक्षम"),
    ("ar", r"احذف|أزل|عطّ?ل|أوقف"),
    ("fa", r"حذف\s+کن|غیرفعال\s+کن|خاموش\s+کن|متوقف\s+کن"),
    ("he", r"מחק|הסר|השבת|כבה|עצור"),
    ("el", r"διάγραψε|αφαίρεσε|απενεργοποίησε|σταμάτησε"),
    ("ro", r"\b(?:șterge|elimină|dezactivează|oprește)\b"),
    ("hu", r"\b(?:töröld|távolítsd\s+el|kapcsold\s+ki|állítsd\s+le)\b"),
    ("cs", r"\b(?:smaž|odstraň|vypni|zastav)\b"),
]


# ---- the same said in configuration ---------------------------------------------------------
# WHY: the same said in configuration rather than prose, in any language around it: TLS
# verification off for every connection, an agent's permission prompts bypassed for every
# command, a scanner or a hook switched off by its variable. One host or one test is a
# scoped setting and reads differently (``verify=False`` in a test, ``curl -k`` once).
SECURITY_DOWNGRADE: Final = Pattern(
    pattern_id="security_downgrade",
    category="injection",
    scopes=MEMORY,
    reason="would switch off TLS verification, permission prompts or a security scanner "
    "for everything (security downgrade)",
    views=COMMAND,
    negatable=True,
    gate=gate(
        r"ssl|tls|trusted-host|httpsverify|bypass|bash\(\*\)|scan|screen|verify|guard|safety|snyk"
        r"|semgrep|trivy|gitleaks|codeql|sonar|systemctl|cloudtrail|guardduty|mppreference"
    ),
    regex=ascii_regex(r"""
      # (not a checklist of what to look for: "flag NODE_TLS_REJECT_UNAUTHORIZED=0, verify=False")
      (?<!\bflag\s)(?<!\bflags\s)(?<!\bflag:\s)
      (?:
        \bnpm\s+config\s+set\s+strict-ssl\s+false\b
      | \bgit\s+config\s+(?:--global\s+|--system\s+)?http\.sslVerify\s+["']?false\b
      | \bNODE_TLS_REJECT_UNAUTHORIZED\s*=\s*["']?0\b
      | \bpip\s+config\s+set\s+global\.trusted-host\s+["']?\*
      | \b(?:PYTHONHTTPSVERIFY\s*=\s*["']?0|GIT_SSL_NO_VERIFY\s*=\s*["']?(?:1|true))\b
      | ["']?defaultMode["']?\s*[:=]\s*["']?bypassPermissions\b
      | \bpermissions\.allow\b[^\n]{0,40}["'`]Bash\(\*\)
      | ["'`]Bash\(\*\)["'`][^\n]{0,40}\bpermissions\.allow\b
      # environment variables are upper case: "SKIP_SECRET_SCAN=1", "KENNING_SCREEN=off"
      | (?-i:\b[A-Z_]*(?:SKIP|DISABLE|NO)_[A-Z_]*
          (?:SCAN|SCREEN|VERIFY|CHECK|SECURITY|GUARD)[A-Z_]*)
        \s*=\s*["']?(?:1|true|yes|on)\b
      | (?-i:\b[A-Z_]*(?:SCAN|SCREEN|SAFETY|GUARD)[A-Z_]*)
        \s*=\s*["']?(?:off|0|false|disabled?)\b
      # the same in YAML: "GIT_SSL_NO_VERIFY: "true"", "NODE_TLS_REJECT_UNAUTHORIZED: '0'"
      | \b(?:GIT_SSL_NO_VERIFY|PYTHONHTTPSVERIFY|NODE_TLS_REJECT_UNAUTHORIZED)\s*:\s*["']?
        (?:true|1|0|false)\b
      # a scanner switched off by name: "SNYK_DISABLE=1", "SKIP_GITLEAKS=true"
      | (?-i:\b(?:SNYK|SEMGREP|TRIVY|GITLEAKS|CODEQL|SONAR|TRUFFLEHOG)_?(?:DISABLE|SKIP
        |OFF)[A-Z_]*
          |\b(?:SKIP|DISABLE|NO)_(?:SNYK|SEMGREP|TRIVY|GITLEAKS|CODEQL|SONAR|TRUFFLEHOG)[A-Z_]*)
        \s*[:=]\s*["']?(?:1|true|yes|on)\b
      # security agents and audit trails stopped: "systemctl disable --now falcon-sensor"
      | \bsystemctl\s+(?:stop|disable|mask|kill)\b[^\n|;&]{0,60}?\b(?:falcon-sensor|falcon
        |clamav\w*
          |crowdstrike|auditd|osqueryd?|wazuh-agent|wazuh|falco|aide|apparmor|sentinel\w*|cbagentd)\b
      | \baws\s+cloudtrail\s+(?:stop-logging|delete-trail)\b
        |\baws\s+guardduty\s+delete-detector\b
      | \bSet-MpPreference\s+-DisableRealtimeMonitoring\s+\$?(?:true|1)\b
      )
      # named as forbidden right after: "... bitte nie setzen", "... - don't accept it"
      (?![^.\n]{0,60}?\b(?:nie|niemals|never|forbidden|prohibited|not\s+allowed|verboten|interdit
        |prohibido|proibido|vietato|don['’]t\s+(?:accept|use|set)|do\s+not\s+(?:accept|use|set)))
    """),
)
PATTERNS: Final[tuple[Pattern, ...]] = (SECURITY_DOWNGRADE,)


def _clause_rule(
    pattern_id: str, reason: str, alternatives: list[tuple[str, ...]], *, negatable: bool = False
) -> ClauseRule:
    return grammar.clause_rule(
        pattern_id, "injection", MEMORY, reason, alternatives, views=EVERY, negatable=negatable
    )


# What is run, when it is only tests or linters: "run all tests without asking" is a preference.
_TESTS: Final = (
    r"(?:unit-?)?test\w*|testi\b|pruebas|тест\w*|测试|測試|テスト|테스트"
    r"|linter\w*|lint\w*|formatter\w*"
)
# A clause that also says to ask first ("sudo always needs my OK, the rest without asking")
# scopes the habit, in the languages of the rows above.
_ASK_FIRST: Final = (
    r"\b(?:always\s+ask|ask\s+first|siempre\s+(?:pide|pregunta)|pide\s+siempre|sempre\s+(?:peça|pergunte)"
    r"|immer\s+(?:nach)?fragen|frag\s+immer|toujours\s+demander|demande\s+toujours|chiedi\s+sempre"
    r"|altijd\s+vragen|vraag\s+altijd|zawsze\s+pytaj|fråga\s+alltid|her\s+zaman\s+sor|mutlaka\s+sor"
    r"|всегда\s+спрашивай|спрашивай\s+подтвержд\w*|завжди\s+питай|luôn\s+hỏi|selalu\s+tanya)\b"
    r"|先问|先問|要先|一定要问|一定要問|必须确认|必須確認|必ず確認|확인을?\s*받|반드시\s*확인|항상\s*확인"
)
# Languages that name the object before the verb: the whole clause is read for tests.
_OBJECT_FIRST_SCOPE: Final = frozenset({"zh", "ja", "ko", "tr", "hi", "bn", "fa"})
_NOT_TESTS: Final = rf"(?!\s*(?:の|的)?\s*(?:[\w'’-]+\s+){{0,2}}?(?:{_TESTS}))"


# The sandbox an agent's commands run in, and what turns it off, in many languages (English
# has its own rows in :mod:`.intent`).
_SANDBOX: Final = (
    r"サンドボックス|песочниц\w*|沙箱|沙盒|샌드박스|सैंडबॉक्स|\bbac\s+à\s+sable\b|\bcaja\s+de\s+arena\b"
    r"|\bpiaskownic\w*|\bkum\s+havuzu\w*|\bhộp\s+cát\b|\bsandbox(?:ing|es)?\b"
)
_OFF: Final = (
    # (Japanese, Korean and Hindi say "not" after the verb: "無効化しないで", "끄지 마", "बंद मत")
    r"(?:無効|オフ|切って|外して)(?!化?(?:し|に)?(?:しない|しません|ないで|する(?:な|べからず)|禁止))"
    r"|отключ\w*|выключ\w*|关闭|關閉|关掉|關掉|禁用|停用"
    r"|(?:끄|꺼|비활성)(?!화?\s*(?:지|하지)\s*(?:마|말|않))|बंद(?!\s*(?:मत|न|नहीं))"
    r"|\bdesligad\w*|\bdesligu\w*|\bdesativ\w*|\bdesactiv\w*|\bdeaktivier\w*|\babschalt\w*|\bausschalt\w*"
    r"|\bdésactiv\w*|\bdisattiv\w*|\bwyłącz\w*|\bkapat\w*|\bdevre\s+dışı|\btắt\b|\bvô\s+hiệu|\bmatikan\b"
    r"|\bnonaktif\w*|\bsandbox\s*[:=]\s*(?:none|off|disabled|false)\b"
)


def _disable() -> list[tuple[str, ...]]:
    rows = [
        (alone[0], f"(?:{alone[1]}){_NOT_TESTS}") if len(alone) == 2 else alone for alone in _ALONE
    ]
    for language, no_ask, scope in _NO_ASK:
        unless = f"{_ASK_FIRST}|{_TESTS}" if language in _OBJECT_FIRST_SCOPE else _ASK_FIRST
        rows.append((unnegated(no_ask, language, unless=unless), f"(?:{scope}){_NOT_TESTS}"))
    return rows


# Languages that put the object before the verb: "codeql.yml dosyalarını sil", "X を削除".
_OBJECT_FIRST: Final = frozenset({"ja", "ko", "tr", "hi", "fa"})
_NEAR: Final = r"(?:[^.!?。！？;；\n]|[.!?](?=\S)){0,60}?"  # a dot in "codeql.yml" is no end


def _stop() -> list[tuple[str, ...]]:
    rows: list[tuple[str, ...]] = []
    for language, verb in _STOP:
        if language in _OBJECT_FIRST:
            rows.append((f"(?:{_TOOLS}){_NEAR}(?:{verb})",))
        elif language == "zh":  # "删除 CodeQL", "把 CodeQL 的检查删掉"
            rows.append((f"(?:{verb}){_NEAR}(?:{_TOOLS})|把{_NEAR}(?:{_TOOLS}){_NEAR}(?:{verb})",))
        else:
            rows.append((unnegated(f"(?:{verb}){_NEAR}(?:{_TOOLS})", language),))
    return rows


CLAUSE_RULES: Final[tuple[ClauseRule, ...]] = (
    # WHY: no more asking, for every action or the dangerous ones, in many languages; "no need
    # to ask before running tests" and "no me preguntes antes de los tests" name no such scope.
    _clause_rule("disable_safety_intl", _R_DISABLE, _disable()),
    # WHY: a check-skipping flag made a rule; "never use --no-verify" and "curl -k once for the
    # local cert" pass.
    _clause_rule(
        "unsafe_flag_always",
        _R_FLAG,
        [(unnegated(_FLAG, "any", unless=_LOCAL), _ALWAYS)],
        negatable=True,
    ),
    # WHY: security scanners and monitors removed or stopped; "don't disable falcon-sensor, ask IT
    # for an exclusion" is negated and passes.
    _clause_rule("security_tools_off", _R_TOOLS, _stop(), negatable=True),
    # WHY: the sandbox switched off, in the languages of the notes; "never disable the sandbox"
    # is negated and passes, and so does a sandbox named with nothing turned off.
    _clause_rule(
        "sandbox_off_intl", _R_DISABLE, [(_SANDBOX, unnegated(_OFF, "any"))], negatable=True
    ),
)
