# Spanish and Russian words of the shop's trade, with the English terms the
# shop's documents use for them. Read by src/knowledge/crosslang.rs: a query
# word in Spanish or Russian that matches a form here is also looked up under
# these English terms (so "¿esto entra en garantía?" finds the English
# warranty FAQ), and still has to clear the same relevance floor.
#
# One concept a line:   english term, english term | spanish forms | russian forms
# - English terms: one word or a phrase ("water heater" must occur as a
#   phrase). Written plainly; they are stemmed like the English documents.
# - Forms: a word, matched by its stem (Snowball Spanish / Russian, accents
#   folded), so "garantia" also finds "garantías" and "гарантия" "гарантии";
#   or a prefix ending in *, matched against the word as typed, for the
#   inflections and derivations a stemmer keeps apart ("гарант*": гарантийный,
#   гарантийной). A prefix is at least three letters.
# - A word can mean two things (Spanish "placa": a board or a licence plate;
#   Russian "плата": a board or a fee): list every sense. The question's other
#   words decide, since a chunk still has to hold enough of them.
# - Words that never name a subject (time, courtesy, "go") are generic in
#   text.rs and stay so whatever they translate to; list one only so that it
#   counts toward "enough of the question's words" as its English twin does
#   ("сколько лет …" / "how many years …").
# - A column may be empty.

# --- coverage, pay and claims
warranty                       | garantia, garantias, garantizado     | гарант*
extended                       | extendida, extendido                 | расширенн*
service contract, contract     | contrato, contratos                  | контракт*, договор*
cover, covered, coverage       | cubre, cubren, cubrir, cubierto, cubierta, cobertura | покрыва*, покрыт*, покроет
customer, owner                | cliente, clientes, dueño, dueña, propietario | клиент*, заказчик*, владел*, хозяин*
pay, paid                      | paga, pagar, pago, pagan, pagado, pagos | оплат*, платит, платить, заплатит*, платн*
invoice, bill, pay             | factura, facturas                    | счет, счета, счёт
claim                          | reclamo, reclamos, reclamacion, reclamaciones, reclamar, queja, quejas | претензи*, рекламаци*, заявк*
damage, damaged                | daño, daños, dañado, dañada, golpe, golpeado, rayon, rayado | поврежд*, ущерб*, царапин*, вмятин*
accident                       | accidente, choque, chocado           | авари*, дтп
insurance                      | seguro, aseguradora, aseguranza      | страховая, страховой, страхование, страховщик
deductible                     | deducible                            | франшиз*
policy                         | politica, politicas, norma, normas, reglamento | политик*, регламент*
rule, policy                   | regla, reglas                        | правил*
manufacturer                   | fabricante, fabricantes, fabrica     | производител*, завод*
defect                         | defecto, defectos, defectuoso        | дефект*, брак*
goodwill                       | cortesia                             |
discount                       | descuento, descuentos, rebaja        | скидк*
dispute                        | disputa, inconformidad, inconforme   | спор, спорит, оспор*, оспарива*
model year, model              | modelo                               | модел*
used, second owner             | usado, usada, seminuevo              | подержанн*
transfer                       | transferir, transferencia, traspaso  | переоформ*

# --- estimates, authorization, diagnosis, labour, parts
estimate                       | presupuesto, presupuestos, cotizacion, cotizaciones, estimado | смет*, оценк*
authorization, approval, authorize, approve | autorizacion, autorizar, autoriza, aprobacion, aprobar, aprueba, permiso | разрешени*, соглас*, одобр*
additional work, extra work    | adicional, adicionales, extra        | дополнительн*, доп
diagnosis, diagnostic          | diagnostico, diagnosticar            | диагност*
inspection, check              | revision, revisar, inspeccion        | осмотр*
test, check                    | prueba, pruebas, probar              | провер*
labor                          | labor                                | трудозатрат*
fee, charge, rate, cost        | tarifa, tarifas, cobro, cobran, cobrar, cuota, costo, precio, cuesta, cuestan | тариф*, сбор, стоимост*, ставк*, плата, платы
shop supplies                  | insumos, consumibles                 | расходник*, расходн*
repair                         | reparacion, reparaciones, reparar, arreglo, arreglar | ремонт*, почин*
repair order, order            | orden, ordenes                       | наряд*
part, parts                    | pieza, piezas, refaccion, refacciones, repuesto, repuestos, parte | запчаст*, детал*
return, returns                | devolucion, devoluciones, devolver   | возврат*, вернуть
special order                  | pedido, encargo                      | заказн*
core                           | casco                                | сердечник
photo, photos                  | foto, fotos, fotografia, fotografias, imagen | фото*, снимк*, снимок
promise                        | prometer, promete, prometio, prometido | обещ*
work                           | trabajo, trabajos, trabajar          |
unit                           | unidad, unidades                     |
system                         | sistema, sistemas                    | систем*
under                          | debajo, abajo                        |
technician                     | tecnico, tecnicos, mecanico, mecanicos | механик*, мастер

# --- the lot and storage
storage                        | almacenaje, almacenamiento, guardado, bodega | хранени*, хранит*
lot, parking                   | lote, patio, estacionamiento, parqueo | стоянк*, парковк*, площадк*
pickup, pick up                | recoger, recogida, recoja            | забрать, заберет, забира*
notice, notification           | aviso, notificacion                  | уведомлени*, извещени*

# --- safety and shop procedures
safety                         | seguridad                            | безопасност*
roof                           | techo, techos                        | крыш*
ladder                         | escalera, escaleras                  | лестниц*, стремянк*
fall protection, fall, harness | caida, caidas, arnes                 | падени*, страховочн*
lockout                        | bloqueo, candado                     | блокировк*
carbon monoxide, co            | monoxido, carbono                    | угарн*, монооксид*
leak                           | fuga, fugas, escape                  | утечк*, течь, протечк*, подтека*
pressure                       | presion, presiones                   | давлени*
manometer                      | manometro, manometros                | манометр*
regulator                      | regulador, reguladores               | регулятор*, редуктор*
lp, propane, gas               | gas, propano                         | газ, газовый, пропан*, баллон*
shore power, power             | corriente                            | берегов*
electric, electrical           | electrico, electrica, electricidad   | электрик*, электрич*

# --- the unit and its systems
rv, motorhome                  | rodante, motorhome, motorhom, camper | автодом*, кемпер*
trailer                        | trailer, traila, remolque            | трейлер*, прицеп*
tire, tires                    | llanta, llantas, neumatico, neumaticos, goma, gomas | шин*, покрышк*, резин*
wheel                          | rueda, ruedas                        | колес*
year, years                    | año, años, anos                      | год, года, лет
age, date code                 | edad, antiguedad, vieja, viejas, viejo, viejos | возраст*, старый, старая, старые
replace, change                | cambiar, cambio, reemplazar, reemplazo | замен*, поменять
battery, batteries             | bateria, baterias, pila              | аккумулятор*, акб, батаре*
charge, charger, charging      | cargador, cargar, carga              | заряд*, зарядк*
winterize, winterizing         | invernar, invernizar, invernalizar, winterizar, invierno | зимовк*, консерв*, законсерв*, зима, зимой, зиму, зимний
freeze, freezing               | congelar, congelado, congelamiento, helada | замерз*, мороз*
water                          | agua                                 | вода, воды, воду, водой
water heater                   | calentador, calentadores, boiler     | водонагревател*, бойлер*, колонк*
water pump, pump               | bomba, bombas                        | насос*, помп*
furnace                        | calefaccion, calefactor, horno, furnace | печк*, печь, отопител*, отоплени*
refrigerator, fridge           | refrigerador, refri, nevera, heladera | холодильник*, холодос
air conditioner, ac            | aire, minisplit                      | кондиционер*, кондей, кондер, кондёр
compressor                     | compresor, compresores               | компрессор*
capacitor, condenser           | capacitor, condensador               | конденсатор*
generator                      | generador, planta                    | генератор*
slide, slide-out               | slide, expandible                    | слайд*
awning                         | toldo, toldos                        | маркиз*, тент*
leveling, jack, jacks          | nivelacion, niveladores, gato, gatos | выравнива*, домкрат*, опор*
inverter                       | inversor                             | инвертор*
converter                      | convertidor                          | конвертер*, преобразовател*
board, plate                   | tarjeta, placa                       | плата, плате, плату, платы
motor                          | motor, motores                       | мотор*, двигател*
sealant, seal                  | sellador, sellante, silicon          | герметик*
