//! What a message is, before anything is read from it as a fact: which of
//! its sentences ask something, whether it only acknowledges or stalls
//! ("ok", "hold on", "сейчас гляну"), which clauses say the technician could
//! not check, whether it corrects an earlier statement, asks to switch
//! language or opens a second complaint. The rule it serves: a fact is
//! recorded only from a clause that states it, and a question, an
//! acknowledgment or "I can't check that" never states one.

// A sentence that opens with a question word asks, with or without "?".
pattern!(
    QUESTION_OPENING,
    r"^\s*[¿(]*\s*(where|wher|whre|what|wat|how|which|why|when|should|shall|do i|do we|do you|does|did i|is it|is there|is that|are there|can i|can you|could|would|any (idea|way)|d[oó]nde|qu[eé]|c[oó]mo|cu[aá]l|cu[aá]ndo|por qu[eé]|debo|puedo|hay que|se puede|где|что|как|какой|какая|какое|какие|куда|почему|зачем|когда|нужно ли|можно ли|надо ли|а где|а как|а что|сколько)\b"
);

// Only acknowledging or stalling: an optional "ok" and then nothing, or a
// stall ("let me check", "pulling the shroud, gimme 10", "ahí voy").
pattern!(
    ACK_LEAD,
    r"^\s*((ага|угу|aj[aá]|yeah|yep|s[ií]|uh+|um+|erm|eh|este|o sea|pues|ну|короче|так)[\s,.!]+)?((ok(ay)?|dale|órale|orale|[aá]ndale|давай|k|kk|okey|oki|alright|all right|right|cool|roger|copy( that)?|got it|gotcha|understood|sure|thanks|thx|ty|will do|on it|vale|bueno|sale|va|ya|listo|entendido|de acuerdo|gracias|ок|окей|ладно|понял|поняла|ясно|хорошо|добро|принял|спасибо)\b[\s,.!:;-]*)+"
);
pattern!(
    STALL,
    r"^\s*(let me|lemme|let'?s see|i'?ll|i will|gonna|going to|about to|pulling|setting|checking|looking|grabbing|getting|heading|hold on|hang on|one (sec|second|min|minute)|a (sec|second|min|minute)|sec\b|gimme|give me a|un toque|un rato|wait|brb|found it|got it|on it|be right|working on it|d[eé]jame|dejeme|d[eé]jeme|ahi voy|ahí voy|voy a|voy\b|espera|espere|espero|un momento|un segundo|ahorita|ya voy|dame un( sec| seg\w*| minuto| momento)?|déjame|сейчас|щас|ща\b|жду|погоди|подожди|минут|секунд|сек\b|секу\w*|пойду|гляну|посмотрю|проверю|иду|счас)"
);

// An action under way or about to be: "pulling …", "teeing in …",
// "voy a …", "destapando …", "ya lo vi, le pongo …", "сейчас сниму".
pattern!(
    DOING,
    r"^\s*(\w+ing\b|i'?m \w+ing\b|(i'?ll|i will|i gotta|i have to|i need to|gonna|going to|about to|let me|lemme|gotta|got to|have to|need to) (go )?\w+|(ya )?(lo|la) (vi|veo|encontr[eé])|voy a|vamos a|le (pongo|pego|conecto|meto)|lo (abro|quito|saco|reviso|checo)|\w+(ando|iendo)\b|ah[ií] est[aá]|сейчас|щас|ща\b|пойду|иду|сниму|сейчас \w+|\w+(аю|яю|ую)\b|завожу|лезу|кину|закину|гляну|voy\b|(estoy|ando) \w+(ando|iendo)|waiting\b|esperando\b|(ya )?(lo|la|los|las|le) (desenchufo|desconecto|conecto|enchufo|mido|pruebo|busco|reviso|checo|quito|saco|abro|cierro|bajo|subo|pongo|destapo|jalo|descargo|puenteo|reseteo|apago|prendo)\b|(que )?(busco|traigo|agarro)\b)"
);

// Words said while thinking aloud or dictating: "uh", "like", "este",
// "o sea", "ну", "короче".
pattern!(
    FILLER,
    r"(^|\s)(uh+|um+|erm|este|o sea|osea|pues|ну|короче|типа|like)([\s,.!]|$)"
);

// A message ending by asking for time: "ya subí al techo, dame un minuto",
// "engaging it now, back in 5 min", "clamp on, waiting for it to shed".
pattern!(
    ENDS_STALLING,
    r"(\b(give me|gimme) (a|one|\d+) (sec|second|min|minute)s?|\bback in (a|\d+) ?(sec|min|minute)s?|\b(be right back|brb)|\bwaiting (for|on) (it|the)\b.*|\bdame un (sec|seg|segundo|minuto|momento)|\b(ahorita|ahora) (vengo|vuelvo|regreso|te digo|te aviso)|\bte (digo|aviso) (ahorita|en un rato|luego)|\bпогоди|\bподожди|\bсейчас вернусь|\bщас гляну|\bсейчас гляну|\bи гляну)\s*[.!]*\s*$"
);

// "I couldn't check that": no tool, no access, no time. A clause saying so
// answers nothing, even with "no" in it ("no gauges on me").
pattern!(
    CANNOT_CHECK,
    r"\b(can'?t|cant|cannot|couldn'?t|could not|unable to|didn'?t (get to|check|have time|watch|test|measure|meter|try|hook (it |them )?up)|did not (get to|check)|haven'?t (yet )?(checked|got to|gotten to|metered|measured|tested|ohmed|ohm'?d|pulled|looked|opened|tried|touched|had (a )?(chance|time))|not able to)\b|\bno (way to (check|test|tell|reach)|(\w+ )?access|time)\b|\b(ladder|lift)('?s| is) (broke|broken|out)\b|\b(raining|pouring)\b|\b(no|don'?t have|didn'?t bring|without) (a |an |my |the |any )?(\w+ )?(gauges?|meter|multi-?meter|dmm|tester|test light|clamp|amp clamp|clamp meter|analy[sz]er|manometer|thermometer|pyrometer|ir gun|load tester|jumper|ladder|key|scope|test harness|feeler gauge|jumper cables|scan tool|test leads)s?\b|\bno (lo |la |le |los )?(med[ií]|prob[eé]|revis[eé]|chequ[eé]|chec[eé]|pude|puedo|alcanzo|alcanc[eé]|llego|llegu[eé]|tuve tiempo|s[eé] c[oó]mo)\b|\bno se puede (medir|probar|revisar|checar|ver)\b|\bno (se )?ve\b|\bno se (lee|puede leer|alcanza a leer)\b|\b(can'?t|cannot) read\b|\b(can'?t|cant|cannot|couldn'?t) find\b|\bno (lo |la |los |las )?(encuentro|encontr[eé]|hallo)\b|\bno tengo (la |el |los |las )?(tabla|manual|diagrama|especificaci[oó]n|datos)\b|\b(unreadable|illegible|worn off|faded out)\b|\bне (читается|прочитать|разобрать)\b|\bno alcanzo a ver\b|\bcan'?t see\b|\bне (видно|вижу|нашел|нашёл|найти)\b|\b(no tengo|no traigo|no traje|sin|no hay)\s+(el |la |un |una |mi |los |las )?(man[oó]metro|cables? de (arranque|puente|corriente)|caimanes|test harness|arn[eé]s de prueba|calibrador|galga|mult[ií]metro|medidor|tester|probador|pinza|amperim[eé]trica|l[aá]mpara de prueba|puente|term[oó]metro|pir[oó]metro|escalera|llave|analizador)\w*|\bне (мерил|замерял|проверял|звонил|прозванивал|могу|смог|смогу|успел|получилось|получается|добрался|доберусь|достать|достаю|дотянуться)\b|\bнет (с собой |под рукой )?(тестера|мультиметра|манометра|клещей|прибора|контрольки|термометра|пирометра|лестницы|ключа|перемычки)\b|\b(тестера|мультиметра|манометра|клещей|прибора|термометра|пирометра) (с собой |под рукой )?нет\b|\bне чем (мерить|проверить|померить)\b|\bнечем (мерить|проверить|померить)\b"
);

// A check planned or not made yet ("gonna pull the roof cap next", "haven't
// stuck the thermometer in yet", "voy a medir", "потом проверю"): whatever
// part it names, it states no result.
pattern!(
    NOT_DONE_YET,
    r"\b(gonna|going to (check|look|pull|test|meter|measure|try|grab|get|go|run|put|swap|replace|do|see|have|take|open|remove|jump|hook|clamp|probe|start|fire|call|order|ohm|bench|verify|confirm|need|be|drop|crawl|climb|tear|unplug|plug|disconnect|connect|hang|let)|about to|fixing to|i'?ll|i will|gotta|got to go|(and|then|n) (i'?ll )?(let you know|get back to you|report back|tell you)|(y )?(te|le) (digo|aviso|cuento|confirmo)|и (скажу|отпишу|напишу|сообщу)|need to (check|look|pull|test|meter|measure)|(have|did)(n'?t| not) .{0,40}\byet|not yet|yet to|voy a|vamos a|tengo que (revisar|checar|medir|probar|ver)|(потом|сейчас|щас) (проверю|посмотрю|гляну|померю|замерю|сниму|полезу|доберусь|сделаю)|буду (проверять|мерить|смотреть)|надо (проверить|посмотреть|померить)|setting up|hooking up|y (escucho|veo|checo|reviso|mido)|(don'?t|do not) (write|put) (that|it|this) (down|in|on)|no (lo )?(anotes|pongas|escribas)|не пиши\w*|сам не (делал|видел|мерил|проверял|смотрел)|\w+ next\s*[.!]?$|no (reading|numbers?) yet|(ahorita|ahora|luego|despu[eé]s|al rato) (hago|prendo|mido|quito|reviso|checo|pruebo|veo|conecto|desconecto|abro|lo|la|le)|todav[ií]a no|a[uú]n no|en un rato|ещ[её] не|пока не|(выключаю|отключаю|снимаю|подключаю|ставлю|лезу|иду) |\bжду\b|\b(waiting|still waiting) (on|for)\b|\besperando\b)\b"
);

// "No wait", "scratch that", "my bad": the message corrects an earlier one.
pattern!(
    CORRECTION,
    r"\b(no,? wait|nope,? wait|wait,? no|hold on,? no|(no|нет|не),? (espera|esp[eé]rate|погоди|подожди|стоп)|scratch that|my bad|i was wrong|correction|i mean|i meant|actually|fat.?fingered|typo|misread|mis-?read|not \d+(\.\d+)?,? (it'?s|it was)|perd[oó]n|me equivoqu[eé]|corrijo|quise decir|en realidad|mejor dicho|med[ií] mal|le[ií] mal|ошибся|ошиблась|поправка|точнее|на самом деле|не так,|я неправильно|опечатк\w*)\b"
);

// An explicit request to switch the reply language.
pattern!(
    TO_SPANISH,
    r"^\s*(in |en )?(spanish|espa[nñ]ol)\s*(please|pls|plz|por ?favor|porfa)?\s*[.!?]*\s*$|\b(do|say|continue|keep going|carry on|go on|run|write|answer|can (u|you|we)|could (u|you|we))\b.{0,30}\bin (spanish|espa[nñ]ol)\b|\b(cambia|cambiar|cambiamos|cambiemos|pasa|pasar|seguimos|sigamos|sigue)\b.{0,15}\b(a|al|en) espa[nñ]ol\b|\b(switch|change|go|talk|speak|answer|reply|respond|write)\b.{0,25}\b(spanish|espa[nñ]ol)\b|\b(in|en) (spanish|espa[nñ]ol),? (please|por favor)\b|\b(habla(me)?|contesta(me)?|responde(me)?|escr[ií]be(me)?|cambia|p[aá]sate|en)\s+(en |a |al )?espa[nñ]ol\b|\bпо-?испански\b|\bна испанск\w*\b|\bпо-?іспанськи\b|\bіспанськ\w*\b|\b(spanish|espa[nñ]ol),? (please|pls|plz|por favor|porfa)\b"
);
pattern!(
    TO_RUSSIAN,
    r"^\s*(in )?russian\s*(please|pls|plz)?\s*[.!?]*\s*$|^\s*(en )?ruso\s*(por ?favor|porfa)?\s*[.!?]*\s*$|\b(do|say|continue|keep going|carry on|go on|run|write|answer|can (u|you|we)|could (u|you|we))\b.{0,30}\bin russian\b|\b(cambia|cambiar|pasa|pasar|seguimos|sigamos)\b.{0,15}\b(a|al|en) ruso\b|\b(switch|change|go|talk|speak|answer|reply|respond|write)\b.{0,25}\b(russian)\b|\b(in) russian,? please\b|\b(en|a|al) ruso\b|\bпо-?русски\b|\bна русск\w*\b|^\s*(ru|rus|рус)\s*(pls|plz|please|пожалуйста)\b|\bпо-?російськи\b|\bросійськ\w*\b|\b(russian|ruso),? (please|pls|plz|por favor|porfa)\b"
);
pattern!(
    TO_ENGLISH,
    r"^\s*(in )?english\s*(please|pls|plz)?\s*[.!?]*\s*$|^\s*(en )?ingl[eé]s\s*(por ?favor|porfa)?\s*[.!?]*\s*$|^\s*(по-?английски|на английском)\s*(пожалуйста|плиз)?\s*[.!?]*\s*$|\b(do|say|continue|keep going|carry on|go on|run|write|answer|can (u|you|we)|could (u|you|we))\b.{0,30}\bin english\b|\b(switch|change|go|talk|speak|answer|reply|respond|write)\b.{0,25}\benglish\b|\bin english,? please\b|\b(en|a|al) ingl[eé]s\b|\bпо-?английски\b|\bна английск\w*\b|\b(давай|перейди|переключи\w*|пиши|отвечай)\b.{0,12}\b(in |на )?english\b|\b(c[aá]mbia(s|me|nos)?|p[aá]sa(s|me|te)?|p[oó]n(me)?|habla(me)?|esc[rí]be(me)?)\b.{0,12}\b(a|al|en) english\b|\bпо-?англійськи\b|\bанглійськ\w*\b|\b(english|ingl[eé]s),? (please|pls|plz|por favor|porfa)\b"
);

/// The language an explicit request asks the replies to switch to.
pub fn language_request(text: &str) -> Option<&'static str> {
    if TO_SPANISH.is_match(text) {
        Some("es")
    } else if TO_RUSSIAN.is_match(text) {
        Some("ru")
    } else if TO_ENGLISH.is_match(text) {
        Some("en")
    } else {
        None
    }
}

/// The message is a question: it ends with "?" or opens with a question
/// word.
pub fn asks(text: &str) -> bool {
    let t = text.trim();
    t.ends_with('?') || t.starts_with('¿') || QUESTION_OPENING.is_match(t)
}

// "Can you write it up?", "¿me hacés el reporte?", "отчёт сделаешь?": a
// request put as a question.
pattern!(
    REQUEST_AS_QUESTION,
    r"\b(can|could|would|will) (you|u|ya) (please )?(write|make|do|send|give|draft|generate|put together)\b|\b(me )?(puedes|pod[eé]s|podr[ií]as|me hac[eé]s|me haces|me armas|me arm[aá]s|me mandas|me mand[aá]s)\b|\b(сделаешь|сделаете|напишешь|напишете|составишь|составите|оформишь|оформите|можешь|можете) ?(мне )?\b"
);

/// A request put as a question ("can you write it up?").
pub fn asks_for_it(text: &str) -> bool {
    REQUEST_AS_QUESTION.is_match(text)
}

/// The message only acknowledges or stalls: it states nothing.
pub fn is_ack(text: &str) -> bool {
    // "ну короче щас гляну", "este déjame quitar la rejilla": fillers said
    // while talking carry nothing.
    let unfilled = FILLER.replace_all(text, " ");
    let t = unfilled.trim();
    // "…, dame un minuto", "… back in 5 min": a message that ends by asking
    // for time, with no reading or state in it, is a stall.
    if ENDS_STALLING.is_match(t)
        && super::units::find_quantities(t).is_empty()
        && !super::lexicon::NO.is_match(t)
    {
        return true;
    }
    let rest = ACK_LEAD.find(t).map_or(t, |m| &t[m.end()..]);
    let rest = rest.trim_matches(|c: char| c.is_whitespace() || ",.!;:-".contains(c));
    if rest.is_empty() {
        return rest.len() < t.len();
    }
    // A stall is short: "found it. flare nut was loose" goes on to say something.
    let words = rest.split_whitespace().count();
    let led = rest.len() < t.len();
    // "hang on grabbing jumper leads from the truck", "un momento, voy por
    // los caimanes": a stall word, then an action under way.
    let after_stall = STALL
        .find(rest)
        .map(|m| rest[m.end()..].trim_matches(|c: char| c.is_whitespace() || ",.!;:-".contains(c)));
    let stall = (words <= 6 && STALL.is_match(rest))
        || (words <= 16 && after_stall.is_some_and(|a| a.is_empty() || DOING.is_match(a)))
        // "ok pulling the speed switch to get at the fuse", "ok, voy a
        // desconectar el motor": after an acknowledgment, an action under
        // way is still no result.
        || (led && words <= 16 && DOING.is_match(rest));
    stall && super::units::find_quantities(rest).is_empty()
}

/// The message past an acknowledgment that opens it ("ok let it run 30
/// min…" is "let it run 30 min…"): the "ok" agrees to go on, it is no
/// verdict on the check.
pub fn without_ack_lead(text: &str) -> &str {
    let t = text.trim_start();
    ACK_LEAD.find(t).map_or(t, |m| &t[m.end()..])
}

/// The clause plans a check, or says it is not made yet.
pub fn not_done_yet(clause: &str) -> bool {
    NOT_DONE_YET.is_match(clause) && super::units::find_quantities(clause).is_empty()
}

// "Is the left side the shore input though?", "should I redo it on the
// battery side?", "¿eso sirve o tiene que ser en el panel?", "не уверен,
// что он был в розжиге": the technician doubts the check they just made.
pattern!(
    DOUBTED_CHECK,
    r"\b(is|does|would|will) (that|this|it) (still )?(count|work|do|ok|okay|good enough|valid|matter|right|correct)\b[^.!]*\?|\bshould i (redo|re-?do|re-?check|re-?test|re-?measure|measure (it )?again|do it again|try (it )?again|start over)\b|\bsorry if (that'?s|thats|it'?s|its) (wrong|off|not right)\b|\bi (think|guess) i was (on|at|in|reading|measuring|probing)\b|\bi (might|may) (have|be) (measured|been|read|had|probed|on|at|in|reading|measuring)\b|\bnot sure (if|whether|that|which) (i|it|the|this|that|side|one)\b|\b(eso|esto|as[ií]) (sirve|vale|cuenta)\b|\btiene que ser (en|con|sin)\b|\bno estoy segur[oa] (si|de|cu[aá]l|que|d[oó]nde)\b|\b(lo )?(repito|vuelvo a medir|mido otra vez|mido de nuevo)\b[^.!]*\?|\bне уверен\w*,? (что|ли|где|какой|какая|в том)\b|\b(надо|нужно|мне) (заново|перемерить|переделать|повторить|перепроверить)\b|\bэто (считается|годится|подходит|засчитывается)\b|\bправильно ли\b"
);

/// The message doubts the check it reports (the wrong point, the wrong
/// condition, whether it counts, the instrument): nothing in it is a
/// result yet.
pub fn doubts_the_check(text: &str) -> bool {
    (DOUBTED_CHECK.is_match(text) || DOUBTED_READING.is_match(text)) && !COUNTS_AS.is_match(text)
}

// "Not that I trust it", "which one do I trust?", "want me to redo it?",
// "could be off by ten either way", "enough, or do I wait?": the
// technician does not stand behind the reading just given.
pattern!(
    DOUBTED_READING,
    r"\bnot sure (that'?s|thats|it'?s|its|this is|what to (put|write|mark|record|call))\b|\b(not that i|i don'?t|i do not|i can'?t|i wouldn'?t) (really )?trust\b|\bwhich (one|reading|number|of them) (do|should|would) (i|you) (trust|believe|go with|use|take)\b|\b(want me to|should i|do i need to|need me to) (redo|re-?do|re-?check|re-?test|re-?measure|measure (it )?again|check (it )?again|do it again)\b|\bcould be off\b|\boff by \w+ either way\b|\b(enough|long enough)\W{0,3}or (do|should) i (wait|give it)\b|\bor is it not\b|\b(meter|tester|gauge|dmm)('?s| is| has)? (a )?(low[- ]batt(ery)?|battery (is )?(low|dying|dead))\b|\b(a )?cu[aá]l (le )?creo\b|\bpuede (estar|que est[eé]) (mal|errad[oa]|descalibrad[oa])\b|\b(lo )?(repito|vuelvo a medir)\s*\?|\b(¿)?(espero|le doy) m[aá]s( tiempo)?\s*\?|\bчему (из них )?верить\b|\b(прибор|тестер|манометр|мультиметр)\w* (может )?(вр[её]т|врать|наврать)\b|\b(прибор|тестер|манометр|мультиметр)\w* (глюч\w*|барахл\w*|сбоит|сдыха\w*)|\bглюч\w* (прибор|тестер|манометр|мультиметр)|\b(meter|tester|gauge|dmm|multimeter|clamp)('?s| is)? (acting (up|weird|funny)|flaky|glitchy|glitching|wonky|dying)\b|\b(flaky|glitchy|wonky|cheap) (meter|tester|gauge|dmm|multimeter)\b|\b(el |mi )?(tester|mult[ií]metro|man[oó]metro|medidor)\w* (est[aá] |anda )?(fallando|falla|loco|raro|chafa)\b|\b(перемерить|переделать|подождать ещё|подождать еще)\s*\?"
);

// "Sometimes clicks, sometimes nothing", "a veces sí a veces no", "то
// работает, то нет": a result that comes and goes answers no step as a
// pass or a fail.
pattern!(
    INTERMITTENT,
    r"\b(sometimes|some times|other times|at times|on and off|off and on|comes and goes|come and go|intermittent(ly)?|now and then|hit or miss|hit and miss|not every time|once in a while|every other (time|try|cycle))\b|\b(first|1st) (try|time|attempt)\b.{0,80}\b(second|2nd|next|third) (try|time|attempt)|\b(primer|1er) (intento|vez)\b.{0,80}\b(segund[oa]|2do|siguiente) (intento|vez)|\b(перв\w*|1-?(я|й)) (раз|попытк\w*)\b.{0,80}\b(втор\w*|2-?(я|й)|следующ\w*) (раз|попытк\w*)|\b(a veces|unas veces|algunas veces|otras veces|de vez en cuando|intermitente|no siempre)\b|\b(иногда|временами|периодически|не всегда|через раз)\b|(^|[^\p{L}])то\s+[^,.;:!?]{1,40}[,;]?\s+то\s"
);

/// The message tells of a result that comes and goes.
pub fn intermittent(text: &str) -> bool {
    INTERMITTENT.is_match(text)
}

// "¿Eso cuenta como que no se mueve libre?": what the observation means is
// asked, the observation itself is not in doubt.
pattern!(
    COUNTS_AS,
    r"\b(counts as|cuenta como|считается,? (что|как))\b"
);

/// The clause says the technician could not check (and so states nothing).
pub fn cannot_check(clause: &str) -> bool {
    CANNOT_CHECK.is_match(clause)
}

pub fn is_correction(text: &str) -> bool {
    CORRECTION.is_match(text)
}

/// Byte ranges of the message's sentences: each ends at "?", "!", a line
/// break, or a full stop followed by a space (not the one in "12.4").
fn sentence_spans(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    for (n, &(i, c)) in chars.iter().enumerate() {
        let end_of_sentence = matches!(c, '?' | '!' | '\n')
            || (c == '.'
                && chars
                    .get(n + 1)
                    .is_none_or(|&(_, next)| next.is_whitespace()));
        if end_of_sentence {
            let end = i + c.len_utf8();
            out.push((start, end));
            start = end;
        }
    }
    if start < text.len() {
        out.push((start, text.len()));
    }
    out
}

pattern!(CLAUSE_BREAK, r",\s|;\s|\s[-–—]+\s");
pattern!(
    CONDITION_OPENING,
    r"^\s*(if|when|once|assuming|suppose|say|si|cuando|una vez|если|когда|допустим)\b"
);

pattern!(
    CONTRAST,
    r"\b(but|though|although|except|pero|aunque|sin embargo|но|хотя|только)\b"
);
pattern!(
    QUESTION_WORD,
    r"\b(how much|how many|what|which|cu[aá]nto|cu[aá]l|d[oó]nde|сколько|какой|какая|какое|какие|где|куда|зачем|почему)\b"
);

// "Is that normal or is that my problem?", "¿es normal o no?": a question
// between two readings of what was stated, which it does not stand behind.
pattern!(ALTERNATIVE, r"\b(or|o|или)\b");
// "Held I think, needle moved a hair?": a statement leaned on, then asked.
pattern!(
    LEANING,
    r"\b(i think|i believe|pretty sure|think so|creo|me parece|думаю|кажется|по-моему)\b"
);

/// Where the asking part of a question sentence begins: "fuse is good —
/// where's the relay?" asks from "where's"; "12.2 at the motor, good
/// enough?" asks in its last clause. A sentence asks as a whole when it
/// opens with a condition ("if the fuse is good, where…"), when a clause
/// before its question asks too ("а полный это сколько, прям до
/// горловины?"), or when `whole` (the message doubts what it states, or
/// puts a "but" against it).
fn asking_from(text: &str, (a, b): (usize, usize), whole: bool) -> usize {
    let sentence = &text[a..b];
    let mut starts: Vec<usize> = vec![0];
    starts.extend(CLAUSE_BREAK.find_iter(sentence).map(|m| m.end()));
    if whole || starts.len() == 1 || CONDITION_OPENING.is_match(sentence) {
        return a;
    }
    let from = sentence.find('¿').unwrap_or_else(|| {
        starts
            .iter()
            .copied()
            .find(|&c| QUESTION_OPENING.is_match(&sentence[c..]))
            .unwrap_or(*starts.last().expect("one start at least"))
    });
    if QUESTION_WORD.is_match(&sentence[..from]) {
        return a;
    }
    a + from
}

/// The message doubts the check, leans on what it states or puts a "but"
/// against it: its question may be about all of it.
fn doubts_what_it_states(text: &str) -> bool {
    doubts_the_check(text)
        || CONTRAST.is_match(text)
        || LEANING.is_match(text)
        || super::lexicon::HEDGE.is_match(text)
        || super::lexicon::UNSURE.is_match(text)
}

/// Byte ranges of the message's sentences that ask something, each from
/// where its asking begins (what a sentence states before its question is
/// not asked).
pub fn question_spans(text: &str) -> Vec<(usize, usize)> {
    let whole = doubts_what_it_states(text);
    sentence_spans(text)
        .into_iter()
        .filter(|&(a, b)| is_question_sentence(&text[a..b]))
        .map(|(a, b)| (asking_from(text, (a, b), whole), b))
        .collect()
}

/// "Fuse is good — where's the relay?", "12.2 at the leads. good enough?":
/// what the message states before it asks, and the question, when the
/// message ends in its one question and says something before it.
pub fn statement_then_question(text: &str) -> Option<(&str, &str)> {
    let spans = question_spans(text);
    let &[(a, b)] = spans.as_slice() else {
        return None;
    };
    if text[b..].chars().any(char::is_alphanumeric) || !text[a..b].chars().any(char::is_alphabetic)
    {
        return None;
    }
    let stated = text[..a].trim_end_matches(|c: char| !c.is_alphanumeric());
    let doubted = doubts_what_it_states(text)
        || QUESTION_WORD.is_match(stated)
        || ALTERNATIVE.is_match(&text[a..]);
    (!doubted && stated.chars().any(char::is_alphanumeric)).then(|| (stated, text[a..].trim()))
}

/// The message without the sentences that give someone else's account
/// ("cust says the last shop put a new fuse in"), or `None` when it has
/// none. What a customer or another tech claims is not a check the
/// technician made, so no lane may record it.
pub fn without_hearsay(text: &str) -> Option<String> {
    let spans = sentence_spans(text);
    let own: Vec<&str> = spans
        .iter()
        .map(|&(a, b)| &text[a..b])
        .filter(|s| !super::lexicon::HEARSAY.is_match(s))
        .collect();
    (own.len() < spans.len()).then(|| own.concat().trim().to_string())
}

// "Getting 9.8 at the motor, that's too low for it right?", "me da 16 de
// diferencia, es poco verdad?", "10,2 на штуцере, это мало?": a reading
// stated, then a check of what it means.
pattern!(
    EVALUATION_TAG,
    r"\b(is (that|it|this) (too |really |kinda |a bit )?(low|high|ok|okay|normal|good|bad|enough|in spec|within spec|out of spec|too low|too high)|that'?s (too |really |kinda )?(low|high|ok|okay|normal|good|bad|inside|within|outside)|thats (too )?(low|high|ok|good|inside|within)|right|correct|es (poco|mucho|normal|bajo|alto|bueno|malo)|est[aá] (bajo|alto|bien|mal)|verdad|no\?|это (мало|много|норм\w*|низко|высоко)|не мало|нормально|норм|мало)\b[^?]*\?\s*$"
);

/// A clause that only asks what the reading before it means ("это норм?",
/// "is that ok?"): it answers nothing itself.
pub fn asks_what_it_means(clause: &str) -> bool {
    let t = clause.trim();
    t.ends_with('?') && !t.contains(|c: char| c.is_ascii_digit()) && EVALUATION_TAG.is_match(t)
}

fn is_question_sentence(s: &str) -> bool {
    let t = s.trim();
    if t.is_empty() {
        return false;
    }
    let asks = t.ends_with('?') || t.contains('¿') || QUESTION_OPENING.is_match(t);
    // A reading with a check of what it means still states the reading.
    let states_a_reading = !QUESTION_OPENING.is_match(t)
        && EVALUATION_TAG.is_match(t)
        && t.contains(|c: char| c.is_ascii_digit());
    asks && !states_a_reading
}

/// The whole message is a question (every sentence with letters asks).
pub fn is_question(text: &str) -> bool {
    let spans = question_spans(text);
    if spans.is_empty() {
        return false;
    }
    let asked: usize = spans.iter().map(|(a, b)| b - a).sum();
    let letters_outside = text
        .char_indices()
        .filter(|(i, c)| c.is_alphanumeric() && !spans.iter().any(|(a, b)| a <= i && i < b))
        .count();
    asked > 0 && letters_outside == 0
}

// Opens what a technician says is *not* the case before saying what is
// ("it's not that it won't start — it starts after the delay", "no es que
// no giren: giran", "не то чтобы не крутит — крутит"). What it frames is
// the reading the technician rejects.
pattern!(
    DENIED_FRAMING,
    concat!(
        r"\b(it'?s|its|it is)\s+not\s+(that|like)\b|\bnot\s+like\s+(it'?s|its|it|the)\b",
        r"|\bcan'?t\s+say\s+(it|that|the|there)\b|\b(i\s+)?wouldn'?t\s+say\s+(it|that|the)\b",
        r"|\b(i'?m\s+)?not\s+saying\b",
        r"|\bno\s+es\s+(que|como\s+que)\b|\bno\s+(digo|dir[ií]a)\s+que\b",
        r"|(^|[^\p{L}])не\s+то\s+чтобы\b|(^|[^\p{L}])не\s+(сказал|сказала|скажу)(\s+бы)?\b|(^|[^\p{L}])нельзя\s+сказать\b",
    )
);

// Where a denied framing ends: the dash, colon or sentence end that turns
// to what is the case, or the "but" that does.
pattern!(
    FRAMING_END,
    r"\s[-–—]+\s|[–—:;.!?\n]|,\s*(but|pero|но|а|it|it'?s)\b"
);

// A "no" (or "yeah no") right before a denied framing.
pattern!(
    LEADING_NO,
    r"(^|[\s,.;:])((yeah|yea|ya|s[ií])\s*,?\s*)?(no|nah|nope|нет|не-а)\s*[,.!—–-]*\s*$"
);

/// The spans of `text` a technician frames as not the case, each from its
/// cue to where the message turns to what is: no reading is taken there.
pub fn denied_spans(text: &str) -> Vec<(usize, usize)> {
    DENIED_FRAMING
        .find_iter(text)
        .map(|m| {
            let end = FRAMING_END
                .find_at(text, m.end())
                .map_or(text.len(), |e| e.start());
            // "No, no es que no giren": the "no" that opens it is the
            // denial's, not an answer.
            let start = LEADING_NO
                .find(&text[..m.start()])
                .map_or(m.start(), |n| n.start());
            (start, end)
        })
        .collect()
}

/// Whether the byte offset `at` of `text` lies in a question sentence.
pub fn in_question(spans: &[(usize, usize)], at: usize) -> bool {
    spans.iter().any(|&(a, b)| a <= at && at < b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_denied_framing_spans_what_it_denies_and_no_more() {
        let denied = |t: &str| -> Vec<String> {
            denied_spans(t)
                .into_iter()
                .map(|(a, b)| t[a..b].trim().to_string())
                .collect()
        };
        assert_eq!(
            denied("It's not that it won't start — it starts after the delay"),
            ["It's not that it won't start"]
        );
        assert_eq!(
            denied("No, no es que no giren: los ventiladores giran"),
            ["No, no es que no giren"]
        );
        assert_eq!(
            denied("насос не то чтобы не крутит — крутит, слышно его"),
            ["не то чтобы не крутит"]
        );
        assert_eq!(
            denied("Не сказал бы, что GFCI не держит — взводится"),
            ["Не сказал бы, что GFCI не держит"]
        );
        // "not" alone, or "не" inside a word, opens no framing.
        assert!(denied("fan not turning, coil's clean").is_empty());
        assert!(denied("вентилятор не крутит").is_empty());
        assert!(denied("the fuse is not blown").is_empty());
    }

    #[test]
    fn acknowledgments_and_stalls_state_nothing() {
        for t in [
            "ok",
            "ok got it",
            "okay, let me check",
            "hold on",
            "ok pulling the shroud, gimme 10",
            "ok ahi voy",
            "ok dejame checar",
            "un momento",
            "сейчас гляну",
            "ок, жду две минуты",
            "понял",
        ] {
            assert!(is_ack(t), "{t:?} is an acknowledgment");
        }
        for t in [
            "ok 12.6 v",
            "fuse ok",
            "ok report",
            "yes",
            "no",
            "ok, fuse is blown",
            "found it. flare nut on the fridge connection was loose, snugged it",
        ] {
            assert!(!is_ack(t), "{t:?} says something");
        }
    }

    #[test]
    fn what_is_stated_before_a_question_is_not_asked() {
        assert_eq!(
            statement_then_question("fuse is good — where's the relay?"),
            Some(("fuse is good", "where's the relay?"))
        );
        assert_eq!(
            statement_then_question("12.2 at the motor terminals, good enough?"),
            Some(("12.2 at the motor terminals", "good enough?"))
        );
        assert_eq!(
            statement_then_question("насос не гудит — где разъём?"),
            Some(("насос не гудит", "где разъём?"))
        );
        for asked_as_a_whole in [
            "if the fuse is good, where is the relay?",
            "posts read 12.5 but the charger was on, does that count?",
            "held i think, needle moved a hair?",
            "11.8 on the ign sense, is that normal or is that my problem??",
            "а полный это сколько, прям до горловины?",
            "where do I probe for the 12 V input?",
        ] {
            assert_eq!(
                statement_then_question(asked_as_a_whole),
                None,
                "{asked_as_a_whole}"
            );
        }
    }

    #[test]
    fn questions_are_found_by_mark_or_opening_word() {
        assert!(is_question("where do I probe for the 12 V input?"));
        assert!(is_question("como se si esta lleno?"));
        assert!(!is_question("como se si esta lleno? no tiene varilla"));
        assert!(is_question("где стоит реле"));
        assert!(!is_question("fuse ok. where is the lid switch?"));
        let t = "fuse ok. where is the lid switch?";
        let spans = question_spans(t);
        assert!(!in_question(&spans, 0));
        assert!(in_question(&spans, t.find("where").unwrap()));
    }

    #[test]
    fn cannot_check_is_not_a_no() {
        for t in [
            "no gauges w/ me today",
            "no test light on the van today, cant do that one",
            "no tengo manometro",
            "no traigo multimetro ahorita",
            "не могу проверить, нет тестера розеток",
            "не успел проверить",
        ] {
            assert!(cannot_check(t), "{t:?}");
        }
        assert!(!cannot_check("no power at the motor"));
        assert!(!cannot_check("нет напряжения"));
    }

    #[test]
    fn language_requests() {
        assert_eq!(language_request("switch to Spanish please"), Some("es"));
        assert_eq!(language_request("давай по-русски"), Some("ru"));
        assert_eq!(language_request("can you answer in english"), Some("en"));
        assert_eq!(language_request("háblame en español"), Some("es"));
        assert_eq!(language_request("the spanish guy said it works"), None);
        assert_eq!(
            language_request("давай in English, мне так проще"),
            Some("en")
        );
        assert_eq!(
            language_request("¿me cambias a English? el writer no lee español"),
            Some("en")
        );
        assert_eq!(language_request("ru pls, Sergei's taking over"), Some("ru"));
    }
}
