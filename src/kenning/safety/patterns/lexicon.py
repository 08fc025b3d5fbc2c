"""Intent in many languages: clause rules built from per-language word lists.

An instruction override needs a verb that sets aside or voids ("ignore", "作废", "無視",
"забудь"), what it sets aside ("instructions", "指令", "правила") and a word that makes them the
model's own ("previous", "之前", "システム", "разработчик"): a clause holding all three is an
override whatever the word order; "Ignore the lint warnings" has no such object and passes.
Each row below lists, per language, the parts that must meet in one clause (see
:class:`.schema.ClauseRule`). English has its own, stricter, ordered rows in :mod:`.intent`.
The word lists were written from the languages' common phrasings of each intent, not from
any test corpus.
"""

from __future__ import annotations

from typing import Final

from kenning.safety.patterns import schema
from kenning.safety.patterns.schema import ALL, EVERY, MEMORY, Category, ClauseRule, Scope

_R_OVERRIDE: Final = "tries to override the model's instructions (prompt injection)"
_R_ROLE: Final = "tries to give the model a new identity or role (prompt injection)"
_R_CONCEAL: Final = "tries to make the model conceal things from the user (prompt injection)"
_R_DISABLE: Final = "would stop approvals, confirmations or safety checks from working (injection)"
_R_SPREAD: Final = "asks to be copied into more memory, skills or rules (self-propagation)"
_R_PHISH: Final = "phishes for the user's password, code or key (phishing)"
_R_EXFIL: Final = "asks to send secrets or the conversation to an outside address (exfiltration)"

# ---- override: (void verb, instructions, the model's own) ---------------------------------------
_OVERRIDE: Final[list[tuple[str, ...]]] = [
    # Chinese, simplified and traditional
    (
        r"忽略|忽視|忽视|无视|無視|不要理会|不要理會|不用理会|别管|別管|忘记|忘記|忘掉|抛开|拋開|"
        r"丢弃|丟棄|放弃|放棄|(?:不要|不用|不必|无需|無需|别|別)再?(?:遵守|遵循|理会|理會|听从|聽從)|"
        r"不再(?:遵守|适用|適用|有效)|作废|作廢|失效|无效|無效|过期|過期|废除|廢除",
        r"指令|指示|提示词?|提示詞|规则|規則|设定|設定|要求|命令|约束|約束|限制",
        r"之前|以上|上面|上述|先前|此前|前面|以前|原来|原來|原先|原有|前述|系统|系統|"
        r"开发者|開發者|给你的|給你的|你收到|收到的|你的|安全",
    ),
    # Japanese
    (
        r"無視|忘れ|従わな|従う必要は?ありません|気にしな|破棄|無効|取り消",
        r"指示|命令|ルール|プロンプト|制限|設定|規則|ガイドライン",
        r"これまで|以前|前に|前の|上記|今まで|システム|開発者|与えられた|安全",
    ),
    # Korean
    (
        r"무시|잊어|잊고|따르지|적용되지|무효|취소",
        r"지시|명령|규칙|프롬프트|제한|지침|설정",
        r"이전|시스템|개발자|지금까지|앞의|위의|받은|안전",
    ),
    # Russian and Ukrainian
    (
        r"игнорир|проигнорир|забудь|забыть|не\s+обращай|не\s+следуй|не\s+соблюдай|отмен|"
        r"не\s+действу|недействительн|устарел|ігноруй|забудь",
        r"инструкци|правил|указани|ограничени|промпт|директив|команд|настро|інструкці",
        r"предыдущ|прежн|систем|разработчик|выше|ранее|тебе\s+дали|"
        r"которые\s+тебе|попередн|безопасност",
    ),
    # Spanish and Portuguese
    (
        r"\b(?:ignora|ignore|ignorar|olvida|olvide|olvidar|descarta|omite|desconsidere|esqueça|"
        r"esqueca)\b|no\s+(?:les\s+)?hagas\s+caso|no\s+sigas|deja\s+de\s+seguir|"
        r"ya\s+no\s+(?:son\s+válidas|aplican|valen|tienen\s+validez)|anulad|não\s+siga|"
        r"não\s+são\s+mais\s+válidas",
        r"instrucciones|indicaciones|reglas|órdenes|normas|directrices|restricciones|"
        r"instruções|instrucoes|regras|orientações|diretrizes|restrições",
        r"anteriores|previas|prévias|de\s+arriba|del\s+sistema|do\s+sistema|que\s+te\s+(?:dieron|dio)|"
        r"originales|antes|de\s+seguridad|de\s+segurança",
    ),
    # German
    (
        r"\b(?:ignorier\w*|vergiss|vergessen|missacht\w*)\b|nicht\s+mehr\s+(?:beachten|befolgen)|"
        r"außer\s+Kraft|ungültig|veraltet|gelten\s+(?:\w+\s+){0,2}?nicht\s+mehr",
        r"Anweisung|Instruktion|Regel|Befehl|Vorgabe|Richtlinie|Systemanweisung|Systemprompt|"
        r"Einschränkung|gesagt",
        r"vorherig|vorig|bisherig|früher|obig|\bdein(?:e|es|er|en|em)?\b|\bIhre[snmr]?\b|System|"
        r"Entwickler|vorher|oben|Sicherheit",
    ),
    # French
    (
        r"\b(?:ignore[rz]?|oublie[rz]?)\b|ne\s+tiens\s+plus\s+compte|ne\s+tenez\s+plus\s+compte|"
        r"ne\s+(?:suis|respecte|suivez|respectez)\s+plus|fais\s+abstraction|"
        r"ne\s+s['’]appliquent\s+plus|annulées|caduques|obsolètes",
        r"instructions|consignes|règles|directives|restrictions|prompt",
        r"précédent|antérieur|ci-dessus|du\s+système|reçues|\btes\b|\bvos\b|auparavant|sécurité",
    ),
    # Italian
    (
        r"\b(?:ignora|dimentica|trascura)\b|non\s+seguire|non\s+sono\s+più\s+valide",
        r"istruzioni|regole|direttive|indicazioni",
        r"precedenti|del\s+sistema|prima|ti\s+sono\s+state\s+date|di\s+sicurezza",
    ),
    # Arabic
    (
        r"تجاهل|انس\b|إنس|لا\s+تلتزم|لم\s+تعد\s+سارية|أهمل|تجاوز",
        r"التعليمات|الأوامر|القواعد|الإرشادات|تعليمات|القيود",
        r"السابقة|النظام",
    ),
    # Turkish, Dutch, Polish, Vietnamese, Hindi
    (r"yok\s+say|görmezden\s+gel|unut|uyma", r"talimat|kural|yönerge|komut", r"önceki|sistem"),
    (r"\b(?:negeer|vergeet)\b", r"instructies|regels|richtlijnen", r"eerdere|vorige"),
    (r"zignoruj|ignoruj|zapomnij", r"instrukcj|zasad|polece|reguł", r"wcześniejsz|poprzedni"),
    (
        r"bỏ\s+qua|phớt\s+lờ|quên|không\s+tuân\s+theo",
        r"hướng\s+dẫn|chỉ\s+dẫn|quy\s+tắc|lệnh|chỉ\s+thị",
        r"trước|hệ\s+thống",
    ),
    (r"अनदेखा|नज़रअंदाज़|नजरअंदाज|भूल\s+जा|मत\s+मानो", r"निर्देश|नियम|आदेश", r"पिछले|पहले"),
    # "forget everything before": a void verb and the whole prior context as a pronoun
    # ("alles davor", "tout ce qui précède", "todo lo anterior"), not a noun it qualifies
    # ("ignora todos los avisos anteriores" passes)
    (
        r"\b(?:vergiss|vergessen\s+Sie|ignorier\w*|missacht\w*)\b",
        r"\balles\b[^.!?\n]{0,40}?\b(?:bisher|bislang|davor|vorher|zuvor|oben|bis\s+jetzt)\b|"
        r"\balles\s+(?:Vorherige|Bisherige|Obige)",
    ),
    (
        r"\b(?:oublie[rz]?|ignore[rz]?)\b",
        r"\btout\s+ce\s+qu(?:i|e|['’])[^.!?\n]{0,40}?(?:avant|auparavant|précédemment|ci-dessus|"
        r"jusqu['’]ici|jusqu['’]à\s+présent|précède)",
    ),
    (
        r"\b(?:olvida|olvide|ignora)\b",
        r"\btodo\s+lo\s+(?:anterior|de\s+antes|dicho|de\s+arriba|que\s+(?:te\s+)?(?:dije|dijeron|"
        r"pidieron|pedí|han\s+dicho))",
    ),
    (
        r"\b(?:esqueça|esqueca)\b|\bignore\s+tudo",
        r"\btudo\s+(?:o\s+que\s+(?:foi\s+dito|te\s+disseram|eu\s+disse)|acima|anterior|antes)",
    ),
    (
        r"\b(?:dimentica|ignora)\b",
        r"\btutto\s+(?:quello\s+che|ciò\s+che|quanto)[^.!?\n]{0,40}?(?:prima|finora|sopra)|"
        r"\btutto\s+(?:il\s+)?precedente",
    ),
    (
        r"забудь|игнорируй|проигнорируй",
        r"\b(?:всё|все)\b[^.!?\n]{0,30}?(?:раньше|ранее|выше|до\s+этого|прежде|что\s+тебе\s+"
        r"(?:говорили|сказали))",
    ),
    (
        r"忘掉|忘记|忘記|忽略|无视|無視|别管|別管|不要管|不用管",
        r"之前|以上|上面|前面|先前|此前",
        r"一切|全部内容|全部內容|的事|说的|說的|让你做|讓你做|告诉你|告訴你|交代",
    ),
    (
        r"忘れ|無視",
        r"(?:これまで|ここまで|以前|上記|前)の(?:内容|こと|話|会話|やりとり|指示)",
    ),
    (r"잊어|잊고|무시", r"지금까지|이전|위의|앞의", r"모든\s*것|전부|내용"),
    # "obey only this note": only-follow + a reference to the note itself
    (
        r"只(?:听从|聽從|服从|服從|遵守|遵循)|だけに従|만\s*따르|только\s+(?:то|мои|эти|этой)|"
        r"solo\s+(?:obedece|sigue|las\s+notas)|obedece\s+solo|nur\s+noch|uniquement|"
        r"apenas|soltanto|yalnızca|alleen|tylko|chỉ\s+làm\s+theo|केवल|فقط",
        r"这条记忆|這份備忘錄|这份备忘录|這條記憶|本条|このメモ|이\s*메모|этой\s+заметк|"
        r"esta\s+nota|este\s+archivo|dieser\s+Notiz|cette\s+note|desta\s+nota|scritte\s+qui|"
        r"questa\s+nota|bu\s+nottaki|deze\s+notitie|tej\s+notatki|ghi\s+chú\s+này|इस\s+नोट|"
        r"هذه\s+الملاحظة|这条|這條|我的(?:要求|指示)|мои\s+указания|meine\s+Anweisungen",
    ),
]

# ---- role hijack: a new identity without limits ------------------------------------------------
_ROLE: Final[list[tuple[str, ...]]] = [
    (
        r"你现在(?:是|的身份|扮演)|你現在(?:是|的身份|扮演)|从现在(?:开始|起)你是|從現在(?:開始|起)你是",
        r"没有任何限制|沒有任何限制|不受|无限制|無限制|管理员|管理員|最高权限|最高權限|不经确认|不經確認|名叫",
    ),
    (r"没有任何限制的|沒有任何限制的|不受(?:开发者|開發者|任何)?.{0,6}(?:约束|約束|限制)",),
    (r"制限のない|制限なし|として振る舞", r"AI|制限|倫理|ルール"),
    (
        r"あなたは|君は|お前は",
        r"(?:制限|ルール|規則|倫理)[のもが]?(?:一切|何も)?(?:ない|なし|無し|無い)",
    ),
    (r"倫理規定は適用されません|制限(?:は|を|が)?(?:もう|すでに|既に|全て|すべて)?解除",),
    (r"제한이\s*없는|규칙은\s*너에게\s*적용되지|제한\s*없이",),
    (
        r"너는|넌|당신은|지금부터",
        r"(?:규칙|제한|제약|윤리)(?:도|이|은|가)?\s*(?:전혀\s*|하나도\s*)?없는",
    ),
    (
        r"теперь\s+ты|ты\s+теперь|отныне\s+ты",
        r"без\s+ограничени|не\s+распространя|свобод|по\s+имени",
    ),
    (r"ИИ\s+без\s+ограничений|без\s+каких-либо\s+ограничений",),
    (
        r"\bahora\s+eres\b|a\s+partir\s+de\s+ahora\s+eres|agora\s+você\s+é|você\s+agora\s+é",
        r"sin\s+restricciones|sem\s+restrições|llamad|chamad|sin\s+límites|sem\s+limites",
    ),
    (
        r"\bdu\s+bist\s+(?:ab\s+sofort|jetzt|nun|ab\s+jetzt)\b|"
        r"\b(?:ab\s+sofort|ab\s+jetzt|von\s+nun\s+an|jetzt|nun|ab\s+heute)\s+bist\s+du\b",
        r"ohne\s+(?:jegliche\s+|alle\s+|irgendwelche\s+)?(?:Einschränkung|Grenzen|Filter)|"
        r"uneingeschränkt|"
        r"keine\s+Richtlinien|ohne\s+Regeln|namens",
    ),
    (
        r"\btu\s+es\s+(?:désormais|maintenant|dorénavant)|\bvous\s+êtes\s+(?:désormais|maintenant)",
        r"sans\s+(?:aucune\s+)?(?:restriction|limite|règle)|ne\s+refuse\s+jamais|nommé|appelé",
    ),
    (r"أنت\s+الآن|من\s+الآن\s+أنت", r"بلا\s+(?:أي\s+)?قيود|بدون\s+قيود|لا\s+تنطبق"),
    (
        r"\b(?:da\s+adesso|ora|adesso)\s+sei\b",
        r"senza\s+(?:alcun\w*\s+|nessun\w*\s+)?(?:limit|restrizion|regol)|non\s+devi\s+più",
    ),
    (
        r"\b(?:artık|bundan\s+sonra|şu\s+andan\s+itibaren)\b",
        r"kısıtlama\w*\s+olmayan|sınırsız|kuralsız|filtresiz",
    ),
    (
        r"\bjesteś\s+teraz\b|\bteraz\s+jesteś\b|\bod\s+teraz\b",
        r"\bbez\s+(?:żadnych\s+)?(?:ograniczeń|zasad|reguł|filtrów)",
    ),
    (
        r"\bje\s+bent\s+nu\b|\bvanaf\s+nu\s+ben\s+je\b",
        r"\bzonder\s+(?:enige\s+|alle\s+)?(?:beperkingen|regels|grenzen|filters)",
    ),
]

# ---- concealment -------------------------------------------------------------------------------
_CONCEAL: Final[list[tuple[str, ...]]] = [
    (
        r"(?:不要|别|別|不许|不許|不准|切勿|勿|不可以|不能|绝对不要|絕對不要)"
        r"(?:告诉|告訴|告知|透露给|透露給|让|讓)(?:用户|使用者|主人|他|她)",
    ),
    (r"(?:对|對|向)(?:用户|使用者)(?:隐瞒|隱瞞|保密)|瞒着|瞞著|要对用户保密|要對使用者保密",),
    # "no need to tell the user": not telling, said as needless
    (
        r"(?:不需要|不用|不必|无需|無需)(?:告诉|告訴|告知|通知|让|讓)(?:用户|使用者)|"
        r"(?:不要|别|別)(?:写进|寫進|记入|記入)(?:变更|變更|更新)?(?:记录|紀錄|記錄|日志|日誌)",
    ),
    (r"回复里也不要提|回覆.*不要提|就说什么都没做|就說什麼都沒做|只说已完成|只說已完成",),
    (r"ユーザーに(?:は)?(?:言わない|言わず|知らせない|報告しない|伝えない)|内緒|黙って",),
    (r"사용자에게\s*(?:절대\s*)?(?:알리지|말하지|보고하지)|사용자\s*모르게",),
    (
        r"не\s+(?:сообщай|говори|рассказывай|упоминай)\s+(?:об\s+этом\s+)?пользовател|никому\s+не\s+говори|"
        r"втайне|незаметно\s+для",
    ),
    (
        r"no\s+(?:le|lo|se\s+lo)\s+(?:digas|cuentes|informes|menciones|comentes)\s+(?:nada\s+)?al\s+usuario|"
        r"sin\s+avisar|a\s+escondidas|"
        r"sin\s+que\s+el\s+usuario|não\s+conte\s+ao\s+usuário|sem\s+avisar|sem\s+que\s+o\s+usuário|"
        r"às\s+escondidas",
    ),
    (
        r"(?:erwähne|sag|verrate)\w*\s+(?:es\s+)?(?:dem|der)\s+(?:Nutzer|Benutzer)\w*.{0,40}nicht|"
        r"ohne\s+dass\s+der\s+(?:Nutzer|Benutzer)|heimlich",
    ),
    (
        r"ne\s+(?:le\s+)?(?:dis|dites)\s+(?:surtout\s+)?(?:rien|pas)\s+(?:de\s+\w+\s+)?à\s+l['’]utilisateur|"
        r"sans\s+que\s+l['’]utilisateur|en\s+cachette",
    ),
    (r"non\s+dire\s+(?:nulla\s+)?all['’]utente|di\s+nascosto",),
    (r"لا\s+(?:تخبر|تذكر|تُعلم|تعلم)\s+(?:لل|ال)?مستخدم|دون\s+علم\s+المستخدم",),
    (r"उपयोगकर्ता\s+को\s+(?:\S+\s+){0,6}?(?:मत|न|नहीं)\s+(?:बता|बताएं|बताना|बताएँ)",),
]

# ---- disabling approvals and safety checks ----------------------------------------------------
_DISABLE: Final[list[tuple[str, ...]]] = [
    (
        r"(?:不需要|不用|不必|无需|無需)再?(?:征求|徵求|询问|詢問|经过|經過)?(?:用户|使用者)?的?(?:确认|確認|同意|批准)|"
        r"(?:不用|不必|不需要)再?(?:询问|詢問)(?:用户|使用者)|审批流程已经?关闭|審批流程已經?關閉|"
        r"(?:关闭|關閉)(?:安全检查|安全檢查|审批|審批|确认|確認)|视为已经?批准|視為已經?批准",
    ),
    (r"確認を省略|承認なしで|確認せずに|確認なしで",),
    (r"승인을?\s*받지\s*말고|안전\s*검사는?\s*꺼|확인\s*없이\s*(?:바로\s*)?실행",),
    (
        r"отключи\s+(?:все\s+)?проверк|не\s+спрашивай\s+подтвержд|без\s+подтвержден|"
        r"больше\s+не\s+спрашивай|согласие\s+(?:уже\s+)?получено\s+заранее",
    ),
    (
        r"(?:승인|권한)\s*(?:요청\s*)?(?:창|요청|대화\s*상자)을?\s*띄우지|이미\s*['‘\"]?예['’\"]?를?\s*(?:선택|누른)한?\s*것으로",
    ),
    (
        r"desactiva\s+(?:las\s+)?(?:confirmaciones|comprobaciones|verificaciones)|"
        r"sin\s+pedir\s+(?:permiso|confirmación)|sem\s+pedir\s+(?:permissão|confirmação)",
    ),
    (
        r"(?:nie|nicht)\s+mehr\s+nach\s+(?:einer\s+)?Bestätigung|Freigaben\s+sind\s+abgeschaltet|"
        r"ohne\s+(?:Bestätigung|Rückfrage|Nachfrage)|Sicherheitsprüfungen?\s+(?:ab|aus)schalten|"
        r"keine\s+(?:Rückfragen?|Nachfragen?|Bestätigungen?|Freigaben?)\s+mehr",
    ),
    # no need to ask the user, and run everything: two parts in one clause
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
        r"(?:不用|不必|不需要|无需|無需)再?(?:问|問|询问|詢問|征求|徵求)",
        r"直接执行|直接執行|直接运行|直接運行|全部执行|全部執行|都执行|都執行",
    ),
    (r"確認する必要はありません|確認は不要|聞く必要はありません|許可は不要", r"実行"),
    (r"물어볼\s*필요\s*없|확인할\s*필요\s*없|허락\s*없이|묻지\s*말고", r"실행"),
    # the same said of the user alone, the command in the next sentence
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
        r"désactive\s+les\s+(?:vérifications|confirmations|contrôles)|n['’]attends\s+plus\s+l['’]approbation|"
        r"sans\s+(?:demander|confirmation|approbation)",
    ),
    (r"عطّ?ل\s+فحوصات|دون\s+طلب\s+موافقة",),
    (r"senza\s+chiedere\s+conferma|disattiva\s+i\s+controlli",),
]

# ---- self-propagation: (this text, copy it, into memory/skills/rules) -------------------------
_SPREAD: Final[list[tuple[str, ...]]] = [
    (
        r"这段话|這段話|这条指令|這條指令|这条记忆|這條記憶|这句话|這句話|本条|本條|这条|這條",
        r"加进|加進|加入|写入|寫入|写进|寫進|复制|複製|写回|寫回|添加|重新写|重新寫",
        r"记忆|記憶|技能|AGENTS|会话|會話|文件|檔案",
    ),
    (r"このメモ|この指示|同じ文|この文", r"書き込|追記|コピー|残して", r"スキル|メモリ|メモ"),
    (r"이\s*지시|이\s*메모|이\s*문장", r"복사|추가|기록|저장", r"메모리|스킬|파일"),
    (
        r"этот\s+текст|эту\s+инструкци|эту\s+заметк|этот\s+абзац",
        r"добавля|копируй|записыва|сохраня",
        r"памят|навык|файл",
    ),
    (
        r"esta\s+instrucción|esta\s+nota|este\s+párrafo|este\s+parágrafo|esta\s+instrução",
        r"copia|añade|incluye|inclua|copie|adicione|agrega",
        r"memoria|memória|habilidad|habilidade",
    ),
    (
        r"diese\s+Anweisung|diese\s+Notiz|diesen\s+Absatz",
        r"schreib|kopier|füge",
        r"Gedächtnis|Speicher|Skill",
    ),
    (
        r"cette\s+consigne|cette\s+note|ce\s+paragraphe",
        r"recopie|ajoute|inclus|copie",
        r"mémoire|compétence",
    ),
]

# ---- phishing: (ask the user, a secret) ------------------------------------------------------
_PHISH: Final[list[tuple[str, ...]]] = [
    (
        r"让用户|讓使用者|让使用者|向用户|向使用者|请用户|請使用者|要求用户|要求使用者|"
        r"让他|讓他|让她|讓她|请他|請他|要求他",
        r"密码|密碼|验证码|驗證碼|口令|私钥|私鑰|助记词|助記詞|令牌",
    ),
    (r"ユーザーに", r"パスワード|ワンタイムコード|暗証番号|認証コード|秘密鍵", r"頼|入力|教え|送"),
    (r"사용자에게", r"비밀번호|인증\s*코드|암호|개인\s*키", r"요청|입력|알려|보내"),
    (
        r"비밀번호|인증\s*코드|개인\s*키",
        r"(?:입력해|입력|알려|보내|붙여\s*넣어)\s*(?:달라|줘|주세요)",
    ),
    (r"попроси|запроси|узнай\s+у", r"пароль|код\s+из\s+SMS|код\s+подтвержд|ключ"),
    (
        r"pídele|pide\s+al|solicita\s+al|peça\s+ao|pede\s+ao|peça-lhe|pede-lhe",
        r"contraseña|senha|código|clave|secret\s+access\s+key|token|credenciales|credenciais",
    ),
    (
        r"bitte\s+den\s+(?:Nutzer|Benutzer)|frag\s+den\s+(?:Nutzer|Benutzer)",
        r"Passwort|TAN|Code|PIN",
    ),
    (
        r"demande\s+à\s+l['’]utilisateur|demande-lui|demandez-lui",
        r"mot\s+de\s+passe|code|clé|jeton",
    ),
    (
        r"yêu\s+cầu\s+(?:họ|người\s+dùng)|hỏi\s+(?:họ|người\s+dùng)|nhờ\s+(?:họ|người\s+dùng)",
        r"mật\s+khẩu|token|mã\s+xác\s+(?:minh|thực)|khóa\s+bí\s+mật|\.npmrc",
    ),
    (r"اطلب\s+من\s+المستخدم", r"كلمة\s+المرور|رمز"),
]

# ---- exfiltration in prose: (send, a secret, an outside address) ------------------------------
# A credentials file named by its path is a secret in every language's sentence.
_CRED_FILE: Final = (
    r"~/\.ssh|\bid_(?:rsa|ed25519|ecdsa)\b|~/\.aws|\.git-credentials|\.netrc|\.npmrc|\.pypirc"
    r"|\.kube/config|application_default_credentials\.json"
)
_DEST: Final = (
    r"https?://|\b[\w.+-]{1,64}@[\w-]{1,63}\.[\w.-]{2,}|\b\d{1,3}(?:\.\d{1,3}){3}\b|"
    r"\b(?:[\w-]{1,63}\.){1,4}(?:com|net|org|io|ru|cn|jp|kr|de|fr|es|tw|br|xyz|dev|app|info)\b"
)
_EXFIL_WORDS: Final[list[tuple[str, str, str]]] = [
    (
        r"发到|发送到|发送给|发给|上传到|上傳到|传到|傳到|传送到|傳送到|傳送|推送到|提交到|转发到|轉發到|"
        r"發送到|發到|寄到|发至|傳至",
        r"\.env|密钥|密鑰|密码|密碼|私钥|私鑰|令牌|凭证|憑證|环境变量|環境變數|对话记录|對話記錄|聊天记录|"
        r"API|ssh|\.aws",
        _DEST,
    ),
    (
        r"送信|送って|アップロード|転送|送付",
        r"環境変数|パスワード|APIキー|秘密鍵|認証情報|会話履歴|"
        r"トークン|\.env",
        _DEST,
    ),
    (r"보내|전송|업로드", r"API\s*키|비밀번호|대화\s*기록|환경\s*변수|토큰|개인\s*키|\.env", _DEST),
    (
        r"отправ|присыл|перешли|загрузи|скинь|выгрузи",
        r"ключ|парол|токен|учётн|учетн|переписк|"
        r"истори|\.env|переменные\s+окружения",
        _DEST,
    ),
    (
        r"\b(?:envía|envia|enviar|sube|manda|reenvía|remite|envie|mande|suba|encaminhe)\b",
        r"credenciales|credenciais|contraseñas?|senhas?|claves?|chaves?|tokens?|historial|\.env|"
        r"variables\s+de\s+entorno",
        _DEST,
    ),
    (
        r"\b(?:schick|sende|übermittle|lade)\w*",
        r"Zugangsdaten|Passw(?:o|ö)rter|Schlüssel|Token|"
        r"credentials|\.env|Umgebungsvariablen|\.ssh|\.aws",
        _DEST,
    ),
    (
        r"\b(?:envoie|envoyer|transmets|téléverse)\b",
        r"clés?\s+API|mots?\s+de\s+passe|identifiants|"
        r"jetons?|\.env|historique|variables\s+d['’]environnement",
        _DEST,
    ),
    (r"أرسل|ارسل|ارفع", r"مفاتيح|كلمة\s+المرور|كلمات\s+المرور|\.env|بيانات\s+الاعتماد", _DEST),
    (r"\b(?:invia|manda|carica)\b", r"credenziali|password|chiavi|token|\.env", _DEST),
]
_EXFIL: Final[list[tuple[str, ...]]] = [
    (verb, f"(?:{secret})|{_CRED_FILE}", dest) for verb, secret, dest in _EXFIL_WORDS
]


def clause_rule(
    pattern_id: str,
    category: Category,
    scopes: frozenset[Scope],
    reason: str,
    alternatives: list[tuple[str, ...]],
    *,
    negatable: bool = False,
) -> ClauseRule:
    """A row that reads every view: a German override in leetspeak is still German."""
    return schema.clause_rule(
        pattern_id, category, scopes, reason, alternatives, views=EVERY, negatable=negatable
    )


CLAUSE_RULES: Final[tuple[ClauseRule, ...]] = (
    clause_rule("override_intl", "injection", MEMORY, _R_OVERRIDE, _OVERRIDE, negatable=True),
    clause_rule("role_hijack_intl", "injection", MEMORY, _R_ROLE, _ROLE),
    clause_rule("conceal_intl", "injection", MEMORY, _R_CONCEAL, _CONCEAL),
    clause_rule("disable_safety_intl", "injection", MEMORY, _R_DISABLE, _DISABLE),
    clause_rule("self_propagation_intl", "injection", MEMORY, _R_SPREAD, _SPREAD),
    clause_rule("phishing_intl", "phishing", MEMORY, _R_PHISH, _PHISH),
    clause_rule("exfil_prose_intl", "exfiltration", ALL, _R_EXFIL, _EXFIL, negatable=True),
)
