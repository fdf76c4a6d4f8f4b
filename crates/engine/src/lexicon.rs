//! The engine's own words: language detection, generic answer words and the
//! intent patterns, in English, Spanish and Russian, plus the few fixed
//! phrases of its replies. Procedure-specific words live in `procedures/`.

use std::sync::LazyLock;

use regex::Regex;

fn re(p: &str) -> Regex {
    Regex::new(&format!("(?i){p}")).expect("lexicon patterns compile")
}

/// Detects the message language when it is clear; `None` for unclear text
/// (numbers, "ok", emoji), which must not change the session language.
/// "en", "es", "ru", "pt-BR", "zh-Hans": a BCP 47-ish primary tag and an optional subtag.
pub fn is_language_tag(s: &str) -> bool {
    let mut parts = s.split('-');
    let primary = parts.next().unwrap_or("");
    (2..=3).contains(&primary.len())
        && primary.chars().all(|c| c.is_ascii_lowercase())
        && parts.all(|p| (2..=8).contains(&p.len()) && p.chars().all(|c| c.is_ascii_alphanumeric()))
}

pub fn detect_language(text: &str) -> Option<&'static str> {
    let letters = text.chars().filter(|c| c.is_alphabetic()).count();
    if letters < 3 {
        return None;
    }
    let cyrillic = text
        .chars()
        .filter(|c| ('\u{0400}'..='\u{04FF}').contains(c))
        .count();
    if cyrillic * 2 >= letters {
        return Some("ru");
    }
    static ES: LazyLock<Regex> = LazyLock::new(|| {
        re(
            r"[ñ¿¡áéíóú]|\b(el|la|los|las|de|un|una|en|se|lo|hace|tiene|sale|agua|hielo|no funciona|funciona|está|esta|qué|que|dónde|donde|cómo|como|hay|del|por|para|con|sin|enfría|enfria|prende|calienta|revisé|revise|cambié|haz|escribe|reporte|informe|fusible|ventilador)\b",
        )
    });
    static EN: LazyLock<Regex> = LazyLock::new(|| {
        re(
            r"\b(the|is|are|not|doesn.?t|won.?t|at|on|and|with|where|what|how|it|fan|fuse|works?|write|report|check(ed)?|replaced|found)\b",
        )
    });
    let es = ES.find_iter(text).count();
    let en = EN.find_iter(text).count();
    if es > en {
        Some("es")
    } else if en > 0 {
        Some("en")
    } else {
        None
    }
}

// Generic answers to a yes/no step (only applied to the step being asked,
// or to a step whose subject the clause names).
pattern!(
    pub YES,
    r"^\s*(y|ya|yes|yep|yeah|yup|sure|correct|ok(ay)?|good|fine|intact|works?|working|passed?|present|closed|continuity|s[ií]|bien|correcto|funciona|да|ага|есть|норм\w*|исправ\w*|цел\w*|работает)\b|\b(is |are |looks? |tests? |checks? (out )?)?(ok(ay)?|good|fine|intact|in spec|within spec|normal)\b|\b(has|have|got|shows?) continuity\b|\b(está|esta|están|estan) bien\b|\bbien\b|\b(в норме|в порядке|исправ\w*|цел\w*|нормальн\w*|норм)\b"
);
pattern!(
    pub NO,
    r"\b(a third|half|a quarter|a fraction|maybe half|about half|like half|maybe a third|about a third)( of)? (a |the )?(normal|usual|what it should|spec|rated)\w*|\b(la mitad|un tercio|una fracci[oó]n) de (lo )?(normal|que deber[ií]a)|\b(половин\w*|треть|четверть) (от )?нормы\b|\b(has |have |got |shows? |with )?continuity ([\w-]+ ){0,2}(to|with) (the )?(chassis|frame|ground|gnd|case|shell|housing)\b|\b(short(ed)?|grounded) to\b|^\s*(n|no|nope|nah|negative|нет|не)\b|\b(blown|open|bad|dead|burnt|burned|failed|no continuity|nada|not even a \w+|nothing at all|not (ok|good|intact|working|present)|does ?n.?t work|out of spec|no power|nothing|(does ?n.?t|does not|wo ?n.?t|did ?n.?t|would ?n.?t|not|never) (even )?(budge|move|twitch|turn|spin|run|start|latch|engage|reset|kick (on|in)|come on|fire|light)|not even a (twitch|click|hum|flicker))\b|\b(no|ni) (se )?(mueve|movi[oó]|prende|arranca|jala|engancha|pega|rearma|enciende)\b|\bне (крутит\w*|двига\w*|шевел\w*|цепляет|взвод\w*|пош[её]л\w*|ид[её]т|запуска\w*|включа\w*|заводит\w*)|\b(quemado|fundido|abierto|no funciona|sin continuidad|no sirve|malo)\b|\b(сгорел\w*|перегорел\w*|обрыв\w*|не работает|нет цепи|нет питания|неисправ\w*|вздут\w*)\b"
);

pattern!(
    pub LOCATE,
    r"\bwhich (one|wire|pump|terminal|screw|port|fuse|breaker|relay|connector|pin|lead|side|slot|plug|valve|line|hose|switch|post|lug|cable|harness|circuit|module|board|sensor|one of)s?\b.{0,40}\b(is|are|goes|go|feeds?|for)\b|\bкуда\s+(тут\s+|мне\s+)?(цеплять|подключать|подключить|цепляться|ставить|втыкать|смотреть|лезть)\b|\bкакой (из|провод|предохранитель|штуцер|разъём|разъем|клапан|насос)\b.{0,40}\?|\bcu[aá]l (de (los|las) )?(cables?|terminal\w*|tornillos?|fusibles?|conectores?|bombas?|v[aá]lvulas?|mangueras?|pines?|lados?|postes?) (es|son|va|van)\b|\bhow do i get (at|to)\b|\b(?:where|wher|whre|wehre|were)\s*(is|are|'s|do i find|can i find|would i find|to find|'?s the)\b|\bwhere\b.*\?|\blocation of\b|\bd[oó]nde\s+(est[aá]|se encuentra|queda|encuentro|va)\b|\bd[oó]nde\b.*\?|\bгде\b"
);
pattern!(
    pub EXPLAIN,
    r"\bwhat\s*(is|are|'s|does)\s+(a|an|the|this|that)?\s*\w+|\bwhat'?s\s+(a|an|the|this|that)\b|\bqu[eé]\s+es\b|\bpara qu[eé] sirve\b|\bчто\s+(такое|это|за)\b|\bзачем нужен\b"
);
pattern!(
    pub HOWTO,
    r"\bhow\s+(do|can|should|would|to|'?d)\s+(i|we|you|u)?\s*(find|get|disconnect|connect|remove|pull|take|open|reset|isolate|jump|jumper|bypass|access|reach|tell|know|do|run|set|clear|turn|switch|put|hook|use|probe|meter|load|bleed|purge|drain|prime|locate)\b|^\s*[¿]?\s*c[oó]mo\s+(le |lo |la |los |las |se |me )?(hago|hacemos|puedo|debo|desconecto|conecto|quito|saco|mido|pruebo|reviso|checo|encuentro|llego|accedo|abro|bajo|subo|pongo|uso|s[eé]|reseteo|aislo|brinco|puenteo|purgo|drenar|desconectar|quitar|sacar|medir|probar|revisar|checar|encontrar|abrir|resetear|aislar)\b|\bc[oó]mo\s+(hago|hacemos|se hace|le hago)\b|\bкак\s+(мне\s+|нам\s+|тут\s+|его\s+|её\s+|ее\s+|это\s+)?(найти|отключить|подключить|снять|добраться|открыть|сбросить|узнать|понять|сделать|достать|подлезть|проверять|замерить|прокачать|слить|перемкнуть|обойти|изолировать|разобрать|зайти|попасть)\b|\bhow\s*(do|can|should|would)?\s*(i|we|you)?\s*(to\s+)?(check|test|measure|verify|read|find out|tell|jump|bypass|do that|do it)\b|\bhow to\b|\bhow\s+(do|can|should|would)\s+(i|we|you)\s+(do|perform|run|make|go about)\s+(the|a|an|this|that)\b|\bc[oó]mo\s+(lo\s+|la\s+)?(puedo\s+|se\s+|debo\s+)?(verific|comprueb|compruebo|med|mido|revis|pruebo|prueb|checo)\w*|\bкак\s+(мне\s+|его\s+|её\s+|ее\s+)?(проверить|померить|измерить|прозвонить|протестировать|проверять)\b"
);
pattern!(
    pub REPORT,
    r"\b(write|make|generate|create|give me|draft|prepare|do|send)\s+(it up|up|(me\s+)?(the|a|my|final)?\s*(final\s+)?(report|write-?up|3c|story|warranty story|ro story))\b|\bwrite (it|this) up\b|\bfinal report\b|\breport please\b|\bready for (the )?report\b|\b(haz|hazme|hac[eé]|hac[eé]me|escribe|genera|genere|gener[aá]|dame|prepara|prep[aá]rame|arm[aá]|[aá]rmame|redacta|redacte)\s+(el|un|mi)?\s*(reporte|informe)\b|\b(сформир\w*|составить|оформить)\s+(отч[её]т|заключени\w*)\b|\bзаключени[ея] по\b|\b(reporte|informe) final\b|\b(напиши|сделай|составь|давай|сформируй|оформи)\s+(мне\s+)?(отч[её]т|репорт)\b|\bотч[её]т\b|\b(the|a|my|gimme|give me|do the|write the)\s+3c\b|\b3c\s+(pls|please|por favor)\b|\bwrap (it|this) up\b|\bwrite-?up\b|\b(manda|m[aá]ndame|env[ií]a|p[aá]same|saca)\s+(el\s+)?(reporte|informe)\b|^\s*(ok(ay)?\W*|ya\W*|listo\W*)?(the\s+)?(report|reporte|informe)\b"
);
pattern!(
    pub RECAP,
    r"^\s*(recap|summary|summari[sz]e|sum (it )?up|rundown|resumen|res[uú]meme|resume|итог\w*|резюм\w*|сводк\w*)\b|\b(give me|gimme|can (i|you|u) get|need) (a |the )?(recap|summary|rundown)\b|\bsummari[sz]e\b|\bwhere (are we|we at|do we stand)\b|\bwhat (have|did) we (ruled?|rule) out\b|\bwhat'?s been (checked|done|tested|ruled out)\b|\bqu?[eé]? (llevamos|hemos) (revisado|checado|visto|probado|medido|hecho)\b|\bq hemos\b|\bd[oó]nde (vamos|estamos|quedamos)\b|\bчто (уже |мы )*(проверили|проверено|сделали|мерили|померили|исключили|нашли)\b|\bгде мы (сейчас|остановились)\b|\b(did|have|had)\s+(we|i|you)\s+(already\s+|ever\s+)?(check|checked|test|tested|measure|measured|verify|verified|look|looked|do|done)\b|\bwhat (did|have) we (check|checked|test|tested|find|found|do|done)\b|\bwhat do we know\b|\b(ya\s+)?(revisamos|verificamos|comprobamos|medimos|checamos)\b|\bqu[eé] (hemos|revisamos)\b|\b(мы|я)\s+(уже\s+)?(проверял\w*|мерил\w*|смотрел\w*|проверили)\b|\bпроверяли ли\b|\bчто мы (уже )?(проверили|нашли)\b|\bwhat (have|did) i (told|tell|give|given|reported|report|said|say) (you|u)\b|\blist what i\b|\blost track\b|\bqu[eé] te (he|hab[ií]a) (dicho|pasado|mandado)\b|\bqu[eé] llevamos\b|\bpor d[oó]nde (íbamos|ibamos|vamos|[ií]bamos)\b|\bqu[eé] pasos (ya )?(hicimos|llevamos)\b|\bres[uú]m[ie]me\b|\bqu[eé] (tenemos|llevamos|hicimos|probamos|revisamos) hasta (ac[aá]|aqu[ií]|ahora)\b|\bdec[ií]me qu[eé] (qued[oó]|est[aá]|fue) (probado|revisado|hecho|medido)\b|\b(list|tell me) what (is|was|has been|we'?ve|we have) (done|checked|tested)\b|\b(done|checked|tested|recorded) so far\b|\bперечисли\b|\bнапомни\w*\b|\bчто (уже )?(записано|записал|сделано|отмечено|проверено)\b|\brecu[eé]rdame\b|\bqu[eé] (tenemos|hay) (anotado|registrado|apuntado)\b|\bчто (мы )?(выяснили|имеем)\b|\bчто я (тебе|вам) (уже )?(сказал|передал|написал|говорил)\b|\bчто (у нас )?(уже )?есть по\b"
);
pattern!(
    pub META,
    r"^\s*(why|how come|why\?|por qu[eé]|¿por qu[eé]|почему|зачем)\b|\bis (that|it|this) (a lot|too much|too many|normal|reasonable|right)\b|\bes mucho\b|\b(это|не) (много|мало|слишком)\b|\bwhy (that|this|is it|do you|did you)\b|\bexplain (that|the|your) (answer|estimate|conclusion)\b"
);
pattern!(
    pub DISPUTE,
    r"\b(just|only|recently) (got )?(replaced|installed|put in|changed|swapped|new)\b.{0,30}\?|\b(ur|you'?re|you are|u r) (saying|telling me|calling|blaming)\b|\b(i'?m |i am )?(not agree|don'?t agree|do not agree|disagree)\b|\bi don'?t buy\b|\b(don'?t|do not) put (that|it|this) (on|in) (the )?(ticket|ro|report|claim)\b|\bit ran (on|with|fine)\b.{0,30}\?\?|\bbrand new\b|\b(только|недавно|уже) (что )?(поставили|поменяли|меняли|заменили|прокачивали|чистили)\b|\bуже (два|три|\d+) раза\b|\bне может (он |она |оно )?быть\b|\bда (он|она|оно) нов\w*|\bуверен\w*\?|\b(lo|la) acab(o|amos|an) de (cambiar|poner|instalar)\b|\bes nuevecit\w*|\b(are you sure|you sure|u sure|that'?s not (it|right)|can'?t be|doesn'?t make sense|not convinced|i doubt|no way|i don'?t think (it'?s|its|that'?s|so)|(it|that|this) (went in|was (just )?(replaced|installed|changed)) (yesterday|last|this|a (week|month|year))|(it'?s|its|that'?s|thats) (brand )?new|(it|that) (ran|worked) fine (yesterday|last (week|night|trip))|(the )?[\w']+'?s not (bad|it|the problem))\b|\b(est[aá]s seguro|seguro que|no puede ser|no es eso|no creo|(lo|la) (cambiaron|pusieron|instalaron) hace|es nuev[oa]|est[aá] nuev[oa])\b|^\W*((no|nah|nope)\W+)+(it'?s |its )?not the\b|\bno chance\b|\bnothing wrong with (that|the|this|it)\b|\b(it'?s|its|it is) not (air-?locked|the \w+)\b|\bno es (el|la) \w+\s*[.!]*\s*$|\b(не верю|no me lo creo|i don'?t believe (it|that|that'?s)|ты уверен|вы уверены|уверен\?|не может быть|не то|это не так|не думаю|только что (поставил|поменял|заменил)|недавно (поставил|поменял|заменил|меняли)|да ладно|\w+ новы[йое],? (месяц|неделю|год) назад|(месяц|неделю) назад (ставили|меняли|поставили))\b"
);
pattern!(
    pub FOUND,
    r"\b(found|discovered|noticed|see|saw|there'?s|there is|there are|spotted)\b.{0,40}\b(hole|leak|crack|burn\w*|melt\w*|damage|corrosion|loose|broken|oil|chafe\w*|rodent|mouse|nest|frost|ice|water)\b|\b(encontr[eé]|vi|hay|not[eé])\b.{0,40}\b(fuga|grieta|quemad\w*|derretid\w*|suelt\w*|roto|aceite|corrosi[oó]n|agua)\b|\b(нашёл|нашел|обнаружил|заметил|вижу|есть)\b.{0,40}\b(дыр\w*|утечк\w*|трещин\w*|обгор\w*|оплав\w*|масл\w*|коррози\w*|болта\w*|обрыв\w*|вод\w*)"
);
pattern!(
    pub LABOR_REQUEST,
    r"\b(labor|labour|how (long|many hours)|hours?|time estimate|flat rate)\b.*\??|\bmano de obra\b|\bcu[aá]ntas horas\b|\bтрудо\w*|\bсколько (часов|времени)\b|\bнормо-?час\w*"
);
pattern!(
    pub LABOR_SKIP,
    r"\b(skip|no need for|don'?t need|forget|without)\b.{0,20}\b(labor|labour|hours|estimate)\b|\b(omit|omite|sin)\b.{0,15}\bmano de obra\b|\b(пропусти|без)\b.{0,15}\b(трудо\w*|час\w*)"
);
pattern!(
    pub LABOR_ACCEPT,
    r"^\s*(ok(ay)?|yes|yep|confirm(ed)?|accept(ed)?|agreed?|looks (good|right|fine)|sounds (good|right)|that'?s (fine|right|good)|fine|good|correct|s[ií]|de acuerdo|confirmo|confirmado|vale|да|подтверждаю|согласен|ок|хорошо)\b"
);
pattern!(
    pub HOURS,
    r"(?:make it|set it to|change (it )?to|should be|más bien|ponle|pon|сделай|поставь|пусть будет)?\s*(\d{1,2}(?:[.,]\d{1,2})?)\s*(h|hr|hrs|hours?|horas?|ч|час\w*)?\b"
);
pattern!(
    pub WORKS_NOW,
    r"\b(works|working|runs|running|fixed|cooling|heating|lights?|lit|fires?|ignites?|good now|ok now|resolved|all good|fine now|holds now|fills now)\b.{0,20}\b(now|again|fine|good|great|properly|normally)?\b|\bnow\b|\b(ya|ahora)\s+(s[ií]\s+|se\s+)?(no\s+)?(apag\w*|prend\w*|jala\w*|enfr[ií]a\w*|sale|qued[oó]|funciona\w*|carga\w*|llega\w*|hizo|hay|fluye|est[aá]|baja|arranca|aguanta|abre|calienta|anda|sirve|enciende|trabaja|sube|gira|mueve|cierra|tira|da|marca|detecta|pasa|gotea|pierde|suena|pita|salta|bota|hace|sella|tiene|lee|corre|opera|responde)\b|\bтеперь\b|\b(funciona|ya funciona|qued[oó]|arreglad\w*|enfr[ií]a|calienta|prende)\b|\b(работает|заработал\w*|починил\w*|греет|холодит|исправно)\b|\b(cycles (fine|normal\w*|properly|right|on and off)|goes (in|out|up|down)\b|(in|out) ?(and|&|/|n) ?(in|out)\b|lights? (every time|first try|right up|up)|blue flame|(getting|makes?|making|got) hot water|(pressure|flow|voltage|temp\w*) came (right )?up|(everything|all|outlets?|receptacles?)( \w+)? (are |is )?(live|working|hot)|cold by morning|(vent|air|temp)\w* (dropped|came down|is down|down) to|(cycling|short.?cycling) (quit|stopped)|quit (cycling|tripping|leaking|blowing)|(no more|stopped) (leak|trip|blow|cycl)\w*|(runs?|ran|goes|went|pumps?|primes?|harvests?) (smooth\w*|clean\w*|fine|great|good|right|normal\w*)|(harvest|cycle) (completes?|goes (thru|through)|complete)|ran it (in and out|all the way))\b|\b((prende|enciende|arranca|jala|camina|gira|sube|baja|cierra|abre|funciona|enfr[ií]a|calienta|carga|llega|tira|corre|anda|cosecha)\w* (bien|normal\w*|perfecto|sin problema|de una|a la primera|completa)|(bomba|motor|slide|toldo|gato)s? (ya )?(jala|gira|tira|camina|sube|baja|funciona)|llama azul|ya no (se )?\w+)\b|\b(горит (ровно |ровным )?(синим|синее|синем)|загорел\w*|зажига\w* (с первого|сразу|нормально)|(ходит|крутит|качает|работают|льёт|льет|дует холодом|проходит) ?(ровно|нормально|полностью|норм\w*|как надо)?|вс[её] (ок|норм\w*|работает|работают)|считает правильно)\b"
);
pattern!(
    REPLACED,
    r"\b(replaced|changed out|swapped( it)? out|new (one|unit|part)|put (a |in a )?new|installed a new|cambi[eé]|reemplac[eé]|puse (uno|una) nuev[oa]|instal[eé] (uno|una|otr[oa])|заменил\w*|поменял\w*|поставил\w* нов\w*)\b"
);
pattern!(
    pub PRONOUN_OBJECT,
    r"^(it|them|one|in|out|uno|una|lo|la|los|las|его|её|ее|их|новый|новую|новое)\b"
);
pattern!(
    /// "The GFCI was fine", "el gfci estaba bien", "реле в порядке": the
    /// part the clause names is cleared, so a repair is not to it.
    pub PART_WAS_FINE,
    r"\b(was|were|is|are|tested|checked|looked|looks)\s+(fine|good|ok|okay)\b|\b(estaba|estaban|est[aá]|est[aá]n|sal[ií][oó])\s+bien\b|\b(был\w*|есть)?\s*(в порядке|в норме|исправ\w*|цел\w*)\b"
);
pattern!(
    /// Repair verbs that only take something off ("quité", "убрал"): also
    /// how a test is set up ("con los cables del LOAD desconectados").
    pub REMOVAL_VERB,
    r"^(quit[eé]|saqu[eé]|убрал\w*|удалил\w*)$"
);
pattern!(REPLACE_CORRECTION, r"^\s*replace\b");
pattern!(
    CLEANED_TIGHTENED,
    r"\b(cleaned|tightened|snugged|re-?seated|re-?crimped|re-?terminated|limpi[eé]|apret[eé]|зачистил\w*|подтянул\w*|затянул\w*|почистил\w*|очистил\w*)\b"
);
pattern!(CLEAN_CORRECTION, r"\b(clean|tighten)\b");

/// What a technician says they did to a part, and the words that open the
/// catalog correction doing the same: picks among the findings of one part.
pub static REPAIR_ACTIONS: [(&LazyLock<Regex>, &LazyLock<Regex>); 2] = [
    (&REPLACED, &REPLACE_CORRECTION),
    (&CLEANED_TIGHTENED, &CLEAN_CORRECTION),
];

pattern!(
    /// "Next", "siguiente", "дальше": go on to the visit's next complaint.
    pub NEXT_COMPLAINT,
    r"^\s*(ok(ay)?[,.]?\s*)?(next|next one|next complaint|go on|move on|on to the next( one)?|siguiente|la siguiente|sigamos|la otra|дальше|следующ\w*|давай следующ\w*)\s*[.!]?\s*$"
);

// The words of a test that swaps or resets a part ("swap the motor plugs
// and retry"); see `extract::tests_by_substitution`.
pattern!(
    pub TEST_BY_SUBSTITUTION,
    r"\b(swap(ped)?|reset|exchange|substitute)\b"
);
pattern!(
    /// While a swap or reset test is asked, the words that may report it:
    /// Spanish and Russian say "swapped" and "replaced" with one verb
    /// ("cambié", "поменял"), so those are the test's too.
    pub SUBSTITUTION_REPLY,
    r"\b(swap(ped|s)?|reset|exchanged?|substitut\w*|intercambi\w*|cambi[eé]|поменял\w*|переставил\w*|сбросил\w*)\b"
);
pattern!(
    pub REPAIR_VERB,
    r"\b(replaced|changed|installed|swapped|put in|new|repaired|fixed|freed( it| them)? up|freed|unstuck|loosened|cleaned|tightened|reseated|spliced|reset|straightened|snugged|topped (it )?off|filled|refilled|thawed|pressure washed|washed|cleared|unclogged|adjusted|re-?crimped|re-?terminated|purged|bled|burped|re-?made|redid|re-?did|re-?sealed|sealed|re-?flared|re-?wired|re-?soldered|soldered|re-?connected|re-?installed|re-?routed|greased|lubed|lubricated|plugged (it |them )?back in|re-?leveled|leveled (it|the coach|the unit))\b|(^|[,.;:]\s*|\b(i|and|then|so|just|we)\s+)(closed|opened|pushed|moved|seated) (it|them)\b( back)?|\b(lo|la|los|las) (met[ií]|baj[eé]|sequ[eé]|cerr[eé]|abr[ií]|conect[eé]|mov[ií]|resete[eé]|acomod[eé]|enderec[eé])\b|\b(ventil[eé]|nivel[eé]|sequ[eé]|acomod[eé])\b|(^|[,.;:]\s*)\w+( \w+)? nuev[oa]s?\s*([,.;:]|$)|\b(re-?programm?ed|programm?ed|re-?configured|(re)?program[eé]|configur[eé]|cambi[eé]|reemplac[eé]|instal[eé]|repar[eé]|arregl[eé]|limpi[eé]|apret[eé]|llen[eé]|rellen[eé]|destap[eé]|ajust[eé]|enderec[eé]|purgu[eé]|saqu[eé]|quit[eé]|puse|rehice|empalm[eé]|destrab[eé]|desatasqu[eé]|sell[eé]|sold[eé]|reconect[eé]|engras[eé]|lubriqu[eé])\b|\b(заменил\w*|поменял\w*|поставил\w*|починил\w*|отремонтировал\w*|зачистил\w*|подтянул\w*|восстановил\w*|отогрел\w*|прочистил\w*|долил\w*|заправил\w*|продул\w*|выпрямил\w*|перетянул\w*|переделал\w*|очистил\w*|почистил\w*|вычистил\w*|убрал\w*|удалил\w*|расклинил\w*|сбросил\w*|перепаял\w*|запаял\w*|переподключил\w*|смазал\w*|загерметизировал\w*|переобжал\w*|обжал\w*|просушил\w*|высушил\w*|подключил\w*|воткнул\w*|вставил\w*|выставил\w*|перенёс\w*|перенес\w*|опустил\w*|(открыл|закрыл)\w*\s+(его|её|ее|их))"
);
pattern!(
    pub BILLING,
    r"\b(owe|owes|arrears|invoice|charged|fee|parking|plate \w+ owe|order [a-z]-?\d+)\b|\b(debe|adeudo|cobr\w+|tarifa|multa)\b|\b(долг|задолженност\w*|штраф|оплат\w*|списал\w*)\b"
);
// "No idea" is not "no": a technician who does not know has not answered.
pattern!(
    pub UNSURE,
    r"\b(probably|prolly|probablemente|seguramente|наверное|наверно|скорее всего|no idea|not sure|unsure|don'?t know|do not know|dunno|idk|no clue|can'?t tell|ni idea|no s[eé](\s*$|\s*[,.!]|\s+(si|qu[eé]|c[oó]mo|d[oó]nde|cu[aá]l|bien|nada|la verdad))|no estoy seguro|quién sabe|не знаю|без понятия|не уверен\w*|хз)\b|\b(can'?t (really )?tell|hard to (say|tell)|(nothing|no way) to compare (it )?(to|with)|just eyeball\w*|by eye|(could|might|may) be (dew|condensation|frost|either)|no s[eé] si es|dif[ií]cil (de )?decir|no hay con qu[eé] comparar|a ojo|не разбер[уеё]\w*|не пойму|на глаз|сравнить не с чем|то ли .{1,20} то ли|может .{1,15}, может)\b|\b(keeps? jumping|jumping (all over|around)|all over the place|(meter|gauge)('?s| is)? (acting up|broke|broken|busted|flak\w+)|no me f[ií]o|(est[aá]|anda) (roto|fallando|loco)|не доверяю|прыга\w+|скач\w+|(meter|reading|display|screen|needle|gauge|number)s?('?s)? (keeps? |is |are )?(flicker|fluctuat|wander|danc|drift)\w*|(leads|probes|clips)( are)? (janky|iffy|bad|loose|shot)|(then )?went blank|no se queda quiet[oa]|se mueve entre|a ratos|(стрелк|показани)\w* (гуля|пляш|бега|плава)\w*|плохо видно|hard to see|cuesta ver)\b"
);
pattern!(
    /// Someone else's account: "cust says it trips", "dice el dueño que no
    /// prende", "хозяин говорит, не заряжает". What a customer or another
    /// tech claims is not a check the technician made.
    pub HEARSAY,
    r"\b(cust(omer)?s?|owner|client|wife|husband|other tech|previous tech|last (shop|tech)|dealer|he|she|(the )?(kid|apprentice|helper|trainee|new guy|junior|rookie|lot guy|porter)s?)('s)?\s+(says?|said|claims?|claimed|tells?|told( me| us)?|reports?|reported|swears?|swore|mentioned|thinks?|thought|wrote( down)?|noted|logged|read|reads|measured|metered|got|had)\b|\b(kid|apprentice|helper|trainee)'s (reading|number|test|check|measurement)\b|\b(el chico|el chaval|el pibe|el aprendiz|el ayudante|el muchacho|el novato)\s+(dice|dijo|anot[oó]|midi[oó]|jura|asegura|ley[oó]|marc[oó]|tom[oó]|me dijo|puso)\b|\b(ученик|стаж[её]р|помощник|напарник|малой|молодой)\w*\s+(говорит|сказал\w*|утверждает|клянется|клянётся|записал\w*|намерил\w*|мерил\w*|померил\w*|пишет|уверяет)\b|\b(per|according to) (the )?(cust\w*|owner|client)\b|\b(cliente|due[nñ][oa]|propietari[oa]|señora?|otro t[eé]cnico)\s+(dice|dijo|comenta|coment[oó]|asegura|reporta|report[oó]|cuenta|cont[oó]|jura)\b|\b(dice|dijo|comenta|coment[oó]|asegura|seg[uú]n)\s+(el |la )?(cliente|due[nñ][oa]|propietari[oa])\b|\b(клиент\w*|хозя\w*|владел\w*|заказчик\w*|другой (мастер|техник)|прошлый мастер)\s+(говорит|говорил|сказал\w*|утверждает|жалуется|уверяет|пишет)\b|\b(говорит|говорил|сказал\w*|утверждает|жалуется|уверяет)\s+(клиент\w*|хозя\w*|владел\w*|заказчик\w*)\b|\bпо словам\s+(клиент\w*|хозя\w*|владел\w*)"
);
pattern!(
    /// "Yeah mostly", "sorta", "ну такое", "más o menos": a yes or no that
    /// qualifies itself is a lean, not an answer.
    pub HEDGE,
    r"\b(mostly|kinda|kind of|sorta|sort of|more or less|so-?so|iffy|ну такое|так себе|более-?менее|m[aá]s o menos|maso|medio medio|(is ?n'?t|is not|not) (too |that |so )?(bad|great)|not great|i'?d say|i guess|no est[aá] (tan )?mal|no tan mal|неплох\w*|не (так |очень )?плох\w*|вроде( бы)?)\b"
);
pattern!(
    /// A guess that something is not so: "вряд ли конденсатор грязный",
    /// "doubt it's the cap", "no creo que sea el relé". It states no check.
    pub DOUBT,
    r"\b(unlikely|i doubt|doubt (it|that|its|it's)|dudo( que)?|no creo que|вряд ли|не думаю,? что|сомневаюсь)\b"
);
pattern!(
    /// "I told you it's 13", "ya te dije", "я же сказал": the technician
    /// repeats what they said before, pushing back.
    pub REPEATED,
    r"\b(i (already |just )?told (you|ya|u)|like i said|as i said|i (already|just) said|(ya )?te (lo )?dije|como te dije|ya lo dije|я же (сказал|говорил|писал)|я уже (сказал|говорил|писал)|говорю же|сказал же)\b"
);
pattern!(
    pub RESUME,
    r"^\s*(ok(ay)?,?\s+)?(go\s+)?back( to (the )?(step|question|procedure|diagnosis))?\s*[.!]?\s*$|^\s*(ok(ay)?,?\s+)?(let'?s\s+)?(continue|carry on|resume|got it,? (continue|next))\s*[.!]?\s*$|^\s*(volver|volvamos|regresa|regresemos)( al (paso|procedimiento|diagn[oó]stico))?\s*[.!]?\s*$|^\s*(contin[uú]a|continuemos|sigamos|seguimos)\s*[.!]?\s*$|^\s*(назад|вернуться|вернёмся|вернемся|вернись)( к (шагу|вопросу|диагностике))?\s*[.!]?\s*$|^\s*(продолж\w*|дальше|понял,? дальше)\s*[.!]?\s*$"
);
pattern!(
    /// A question about what a reading should be: "is 20 psi normal?", "es
    /// suficiente?", "это норма?".
    pub SPEC_QUESTION,
    r"\b(normal|ok|okay|enough|too (low|high|much|little)|in spec|spec|should (it|i|that) be|supposed to|acceptable|marginal|good enough|bad|low|high)\b|\b(normal|bien|suficiente|aceptable|mucho|poco|bajo|alto|en rango|dentro de rango)\b|\b(норм\w*|достаточно|много|мало|допустим\w*|в допуске)\b"
);

pattern!(
    /// Coverage and shop policy: warranty, who pays, claims, authorization.
    pub POLICY,
    r"\b(warrant\w*|covered|coverage|policy|policies|customer pay|cust pay|who pays|goodwill|service contract|extended warranty|claims?|authoriz\w*|approval|deductible)\b|\b(garant[ií]a\w*|cubre\w*|cobertura|pol[ií]tica\w*|p[oó]liza|reclamo\w*|lo paga|paga el cliente|autorizaci[oó]n|deducible)\b|\b(гаранти\w*|покрыва\w*|за сч[её]т клиента|кто платит|претензи\w*|политик\w*|страхов\w*|согласовани\w*)"
);

pattern!(
    /// How a check is made: the tools and moves of a measurement.
    pub METHOD,
    r"\b(measure|meter|probe|back-?probe|jump|jumper|test|check|read|clamp|thermometer|ir gun|gauge|manometer|manifold|continuity|ohm|volt|amp|terminal|connector|wire|lead|plug|harness|unplug|disconnect)\w*|\b(medir|mido|mida|medici[oó]n|probar|pruebo|checo|checar|revisar|puente|brinc\w*|term[oó]metro|man[oó]metro|mult[ií]metro|continuidad|terminal\w*|conector\w*|cable\w*|desconect\w*)\b|\b(мер\w*|замер\w*|измер\w*|щуп\w*|звонить|прозвон\w*|перемычк\w*|термометр\w*|манометр\w*|тестер\w*|мультиметр\w*|клемм\w*|разъ[её]м\w*|провод\w*|отключ\w*)"
);

pattern!(
    pub NEW_SYSTEM,
    r"\b(new (issue|complaint|problem)|another (issue|problem|complaint|thing)|also|plus|next complaint|one more thing|while (it'?s|its) here|separate (thing|issue)|side note|unrelated|on top of that|other thing|(customer|cust|owner) (just |now |also |then )?(say|says|said|mentioned|mentions|wants|reports|also|adds|added)|while (i'?m|we'?re) (under|in|up) (there|here)|(additional|second|another|extra) (concern|issue|complaint|item|line)|customer adds)\b|\bn'?t( \w+){1,4} either\b|\b(otro problema|otra cosa|nueva queja|tambi[eé]n|tampoco|adem[aá]s|aparte|ah y|otra falla|de paso|el cliente (dice|comenta|menciona|quiere|pide))\b|\b(другая проблема|ещё|еще|новая жалоба|также|тоже|кроме того|отдельно|дополнительно|вдобавок|помимо (этого|того)|заодно)\b|\botra\s*:"
);

/// Fixed reply phrases, per session language.
pub struct Phrases {
    pub noted: &'static str,
    pub in_spec: &'static str,
    pub low: &'static str,
    pub high: &'static str,
    pub yes: &'static str,
    pub no: &'static str,
    pub next: &'static str,
    pub back_to_step: &'static str,
    pub where_: &'static str,
    pub what: &'static str,
    pub how: &'static str,
    pub fallback: &'static str,
    pub choices_yes_no: &'static str,
    pub choices_measure: &'static str,
    pub unverified: &'static str,
    pub isolated: &'static str,
    pub labor_draft: &'static str,
    pub offer: &'static str,
    pub replan: &'static str,
    pub recheck: &'static str,
    pub not_ready: &'static str,
    pub which_system: &'static str,
    pub recap_yes: &'static str,
    pub recap_no: &'static str,
    pub recap_nothing: &'static str,
    /// "turn" in a recap's "(turn 3: ...)", so a recap reads in one language.
    pub turn: &'static str,
    pub why: &'static str,
    pub labor_meta: &'static str,
    pub labor_confirmed: &'static str,
    pub labor_skipped: &'static str,
    pub no_labor_yet: &'static str,
    pub repair_noted: &'static str,
    pub boundary_billing: &'static str,
    pub boundary: &'static str,
    pub start: &'static str,
    pub signal: &'static str,
    pub no_component: &'static str,
    pub cooldown: &'static str,
    pub unreadable: &'static str,
    pub unreadable_step: &'static str,
    pub describe: &'static str,
    /// Said in the new language when the technician asks to switch.
    pub language_switched: &'static str,
    /// An acknowledgment ("ok", "hold on") while a step waits.
    pub take_your_time: &'static str,
    /// A message that only gives someone else's account of the fault.
    pub hearsay: &'static str,
    /// The technician doubts the check they just reported.
    pub doubted_check: &'static str,
    /// A result that comes and goes: neither a pass nor a fail.
    pub intermittent: &'static str,
    /// Before the evidence behind a conclusion the technician questions.
    pub evidence: &'static str,
    /// Before one way to check the concluded component again.
    pub check_it: &'static str,
    /// Before what a corrected fact said until now.
    pub was: &'static str,
    /// Before a second complaint's line, queued for after this one.
    pub complaint_queued: &'static str,
    /// Said when a complaint is closed and the next one of the visit starts.
    pub complaint_closed: &'static str,
    /// After an isolation, when another complaint of the visit waits.
    pub next_complaint_offer: &'static str,
    /// After moving on to the next complaint on a report request: how to
    /// have the report written without it.
    pub report_without_next: &'static str,
    /// Before a cause the technician stated in their own words.
    pub stated_cause: &'static str,
    pub stated_correction: &'static str,
    /// The correction of a stated cause whose repair is not reported yet.
    pub stated_pending: &'static str,
    /// The parts line of a stated cause's report block.
    pub stated_parts: &'static str,
    /// A stated cause has no catalog labor: how to give the hours.
    pub stated_labor: &'static str,
    /// Before a tentative answer to confirm ("So: panel fuse: yes?").
    pub so: &'static str,
    /// Before what the complaint said of a check, put to be confirmed.
    pub reported: &'static str,
    /// After it: the question that asks for the confirmation.
    pub reported_ask: &'static str,
    /// The cause would rest on checks that could not be verified.
    pub cannot_conclude: &'static str,
    pub escalated: &'static str,
    /// The hour abbreviation in labor lines.
    pub hr: &'static str,
}

/// How a step's outcome is said back to the technician ("yes", "low").
pub fn said_outcome(kind: super::catalog::StepKind, outcome: &str, lang: &str) -> &'static str {
    use super::catalog::StepKind;
    let l = phrases(lang);
    match (kind, outcome) {
        (StepKind::YesNo, "yes") => l.yes,
        (StepKind::YesNo, _) => l.no,
        (_, "low") => l.low,
        (_, "high") => l.high,
        _ => l.in_spec,
    }
}

/// What the complaint said of a check, said back: "no", "in spec (12.4 V)".
pub fn said_reported(
    kind: super::catalog::StepKind,
    reported: &super::state::PendingConfirmation,
    lang: &str,
) -> String {
    let said = said_outcome(kind, &reported.outcome, lang);
    match (reported.value, reported.unit.as_deref()) {
        (Some(v), Some(u)) => format!("{said} ({v} {u})"),
        _ => said.to_string(),
    }
}

pub fn phrases(lang: &str) -> &'static Phrases {
    match lang {
        "es" => &ES,
        "ru" => &RU,
        _ => &EN,
    }
}

static EN: Phrases = Phrases {
    noted: "Noted",
    in_spec: "in spec",
    low: "below spec",
    high: "above spec",
    yes: "yes",
    no: "no",
    next: "Next",
    back_to_step: "Back to the step",
    where_: "Where",
    what: "What it is",
    how: "How to check",
    fallback: "I couldn't read a result from that.",
    choices_yes_no: "Just answer yes or no",
    choices_measure: "Give me the reading as a number with its unit, e.g.",
    unverified: "I'll mark that check as not verified and move on.",
    isolated: "Isolation complete",
    labor_draft: "Labor draft",
    offer: "Confirm or adjust the labor (e.g. \"make it 1.5\"), skip it, or ask me to write the report.",
    replan: "New evidence changes the conclusion",
    recheck: "Understood, let's re-verify that reading.",
    not_ready: "Not ready for the report yet: the cause isn't isolated.",
    which_system: "Which system are we working on? For example:",
    recap_yes: "Yes",
    recap_no: "Not yet",
    recap_nothing: "Nothing has been recorded yet.",
    turn: "turn",
    why: "Why",
    labor_meta: "Labor is the sum of these operations",
    labor_confirmed: "Labor confirmed",
    labor_skipped: "Labor skipped; the report will use the draft",
    no_labor_yet: "There is no labor draft yet: it appears once the cause is isolated.",
    repair_noted: "Repair noted and operation verified",
    boundary_billing: "Billing questions aren't handled in a diagnostic session.",
    boundary: "That's outside this diagnostic session.",
    start: "Let's start",
    signal: "That points straight to this branch",
    no_component: "I have no notes on that part for this procedure.",
    cooldown: "As I said",
    unreadable: "I couldn't read anything in that message, so nothing was recorded.",
    unreadable_step: "Answer the last question when you're ready, or ask me where the part is or how to check it.",
    describe: "Describe the problem in a few words, e.g. \"roof AC not cooling\".",
    language_switched: "Switching to English.",
    take_your_time: "Take your time. When you have it",
    hearsay: "That is someone else's account, so I have not recorded it as a check.",
    doubted_check: "Since you are not sure of that check, I have not recorded it; take it again as the question says.",
    intermittent: "It comes and goes, so I have not recorded it as a pass or a fail. Catch it while it is failing and tell me what the check shows then.",
    evidence: "What the conclusion rests on",
    check_it: "To check it yourself",
    was: "was",
    complaint_queued: "Second complaint noted; we take it once this one is isolated",
    complaint_closed: "isolated, kept for the report. Next complaint:",
    next_complaint_offer: "Another complaint of this visit is waiting: say \"next\" (or ask for the report) to go on to it",
    report_without_next: "(To write the report without this complaint, ask for the report again: it will be listed as not diagnosed.)",
    stated_cause: "Cause, in your words",
    stated_correction: "Correction",
    stated_pending: "Repair of the stated cause, then verify operation.",
    stated_parts: "As stated by the technician",
    so: "Just to be sure:",
    reported: "Per the complaint,",
    reported_ask: "Is that what you find?",
    cannot_conclude: "I can't name a cause: it would rest on checks that were not verified",
    escalated: "Escalated to a senior technician; verify those checks to go on",
    stated_labor: "No catalog labor for this cause: give the hours (\"make it 1.5\") or ask for the report.",
    hr: "hr",
};

static ES: Phrases = Phrases {
    noted: "Anotado",
    in_spec: "dentro de especificación",
    low: "por debajo de especificación",
    high: "por encima de especificación",
    yes: "sí",
    no: "no",
    next: "Siguiente",
    back_to_step: "Volvamos al paso",
    where_: "Dónde",
    what: "Qué es",
    how: "Cómo revisarlo",
    fallback: "No pude leer un resultado en eso.",
    choices_yes_no: "Responda sí o no",
    choices_measure: "Deme la lectura como número con su unidad, por ejemplo",
    unverified: "Marco esa revisión como no verificada y seguimos.",
    isolated: "Falla aislada",
    labor_draft: "Borrador de mano de obra",
    offer:
        "Confirme o ajuste la mano de obra (p. ej. \"ponle 1.5\"), omítala, o pídame el reporte.",
    replan: "La nueva evidencia cambia la conclusión",
    recheck: "Entendido, volvamos a verificar esa lectura.",
    not_ready: "Aún no está listo el reporte: la causa no está aislada.",
    which_system: "¿En qué sistema trabajamos? Por ejemplo:",
    recap_yes: "Sí",
    recap_no: "Todavía no",
    recap_nothing: "Aún no hay nada registrado.",
    turn: "turno",
    why: "Por qué",
    labor_meta: "La mano de obra es la suma de estas operaciones",
    labor_confirmed: "Mano de obra confirmada",
    labor_skipped: "Mano de obra omitida; el reporte usará el borrador",
    no_labor_yet: "Aún no hay borrador de mano de obra: aparece cuando la causa está aislada.",
    repair_noted: "Reparación anotada y funcionamiento verificado",
    boundary_billing: "Las preguntas de cobro no se atienden en una sesión de diagnóstico.",
    boundary: "Eso está fuera de esta sesión de diagnóstico.",
    start: "Empecemos",
    signal: "Eso lleva directo a esta rama",
    no_component: "No tengo notas sobre esa pieza en este procedimiento.",
    cooldown: "Como dije",
    unreadable: "No pude leer nada en ese mensaje, así que no registré nada.",
    unreadable_step: "Responde la última pregunta cuando puedas, o pregúntame dónde está la pieza o cómo revisarla.",
    describe: "Describe el problema en pocas palabras, p. ej. \"el aire del techo no enfría\".",
    language_switched: "Cambio a español.",
    take_your_time: "Sin prisa. Cuando lo tenga",
    hearsay: "Eso es lo que cuenta otra persona; no lo anoto como comprobación.",
    doubted_check: "Como no está seguro de esa comprobación, no la anoto; repítala como indica la pregunta.",
    intermittent: "Va y viene, así que no lo anoto ni como bueno ni como falla. Hágala mientras está fallando y dígame qué muestra entonces.",
    evidence: "En qué se basa la conclusión",
    check_it: "Para comprobarlo usted mismo",
    was: "antes",
    complaint_queued: "Anoto la segunda queja; la vemos cuando aislemos esta",
    complaint_closed: "aislado, queda para el reporte. Siguiente queja:",
    next_complaint_offer: "Hay otra queja de esta visita pendiente: diga \"siguiente\" (o pida el reporte) para seguir con ella",
    report_without_next: "(Para hacer el reporte sin esta queja, pida el reporte otra vez: quedará como no diagnosticada.)",
    stated_cause: "Causa, en sus palabras",
    stated_correction: "Corrección",
    stated_pending: "Reparar la causa indicada y verificar el funcionamiento.",
    stated_parts: "Según lo indicado por el técnico",
    so: "Para confirmar:",
    reported: "Según la queja,",
    reported_ask: "¿Es lo que usted encuentra?",
    cannot_conclude: "No puedo indicar una causa: dependería de revisiones no verificadas",
    escalated: "Escalado a un técnico sénior; verifique esas revisiones para continuar",
    stated_labor: "Esta causa no tiene mano de obra en el catálogo: indique las horas (\"ponle 1.5\") o pida el reporte.",
    hr: "h",
};

static RU: Phrases = Phrases {
    noted: "Записал",
    in_spec: "в норме",
    low: "ниже нормы",
    high: "выше нормы",
    yes: "да",
    no: "нет",
    next: "Дальше",
    back_to_step: "Возвращаемся к шагу",
    where_: "Где",
    what: "Что это",
    how: "Как проверить",
    fallback: "Не смог понять результат.",
    choices_yes_no: "Ответьте да или нет",
    choices_measure: "Дайте показание числом с единицей, например",
    unverified: "Отмечу эту проверку как не подтверждённую и пойдём дальше.",
    isolated: "Неисправность локализована",
    labor_draft: "Черновик трудозатрат",
    offer: "Подтвердите или измените трудозатраты (например, «сделай 1.5»), пропустите их или попросите отчёт.",
    replan: "Новые данные меняют вывод",
    recheck: "Понял, давайте перепроверим это показание.",
    not_ready: "Для отчёта рано: причина ещё не локализована.",
    which_system: "С какой системой работаем? Например:",
    recap_yes: "Да",
    recap_no: "Ещё нет",
    recap_nothing: "Пока ничего не записано.",
    turn: "ход",
    why: "Почему",
    labor_meta: "Трудозатраты — сумма этих операций",
    labor_confirmed: "Трудозатраты подтверждены",
    labor_skipped: "Трудозатраты пропущены; в отчёте будет черновик",
    no_labor_yet: "Черновика трудозатрат ещё нет: он появится, когда причина будет локализована.",
    repair_noted: "Ремонт записан, работа проверена",
    boundary_billing: "Вопросы оплаты не решаются в диагностической сессии.",
    boundary: "Это вне этой диагностической сессии.",
    start: "Начнём",
    signal: "Это сразу ведёт в эту ветку",
    no_component: "По этой детали в процедуре нет заметок.",
    cooldown: "Как я сказал",
    unreadable: "В этом сообщении нечего прочитать, поэтому я ничего не записал.",
    unreadable_step: "Ответьте на последний вопрос, когда будете готовы, или спросите, где деталь и как её проверить.",
    describe: "Опишите проблему в двух словах, например: \"крышный кондиционер не охлаждает\".",
    language_switched: "Перехожу на русский.",
    take_your_time: "Не спешите. Когда будет результат",
    hearsay: "Это со слов другого человека, как проверку не записываю.",
    doubted_check: "Раз вы не уверены в этой проверке, я её не записал; повторите её, как сказано в вопросе.",
    intermittent: "Это то есть, то нет, поэтому я не записал ни норму, ни неисправность. Проверьте в момент отказа и скажите, что покажет проверка.",
    evidence: "На чём основан вывод",
    check_it: "Как проверить самому",
    was: "было",
    complaint_queued: "Вторую жалобу записал; займёмся ею, когда найдём причину этой",
    complaint_closed: "причина найдена, войдёт в отчёт. Следующая жалоба:",
    next_complaint_offer: "Есть ещё жалоба по этому визиту: напишите «дальше» (или попросите отчёт), чтобы перейти к ней",
    report_without_next: "(Чтобы составить отчёт без этой жалобы, попросите отчёт ещё раз: она будет указана как не диагностированная.)",
    stated_cause: "Причина, с ваших слов",
    stated_correction: "Устранение",
    stated_pending: "Устранить указанную причину и проверить работу.",
    stated_parts: "Со слов техника",
    so: "Уточню:",
    reported: "По жалобе,",
    reported_ask: "Подтверждаете?",
    cannot_conclude: "Не могу назвать причину: она опиралась бы на непроверенные проверки",
    escalated: "Передано старшему технику; проверьте эти пункты, чтобы продолжить",
    stated_labor: "Для этой причины нет нормы в каталоге: укажите часы (\"поставь 1.5\") или попросите отчёт.",
    hr: "ч",
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_languages() {
        assert_eq!(detect_language("roof ac not cooling"), Some("en"));
        assert_eq!(detect_language("el aire no enfría"), Some("es"));
        assert_eq!(
            detect_language("el fabricador de hielo no hace hielo"),
            Some("es")
        );
        assert_eq!(detect_language("no power at the board"), Some("en"));
        assert_eq!(detect_language("кондиционер не холодит"), Some("ru"));
        assert_eq!(detect_language("12.4"), None);
        assert_eq!(detect_language("👍👍"), None);
    }

    #[test]
    fn intents_in_three_languages() {
        assert!(LOCATE.is_match("where is the capacitor?"));
        assert!(LOCATE.is_match("wher is the fuse"));
        assert!(LOCATE.is_match("¿dónde está el fusible?"));
        assert!(LOCATE.is_match("где конденсатор?"));
        assert!(HOWTO.is_match("how do I check the sail switch"));
        assert!(HOWTO.is_match("como verifico el capacitor"));
        assert!(HOWTO.is_match("как проверить датчик"));
        assert!(REPORT.is_match("ok write the report"));
        assert!(REPORT.is_match("fixed, write it up"));
        assert!(REPORT.is_match("haz el reporte"));
        assert!(REPORT.is_match("готово, напиши отчёт"));
        assert!(RECAP.is_match("did we check the fuse?"));
        assert!(RECAP.is_match("мы проверяли предохранитель?"));
        assert!(!REPORT.is_match("the fuse is ok"));
    }
}
