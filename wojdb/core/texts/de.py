"""The participant documents of wojdb/core/texts/en.py for a study in German: the same facts
and placeholders, written as a German survey would put them (formal "Sie")."""

INFORMATION_SHEET = """\
## Titel des Projekts
{project_title}

## Worum geht es in der Studie?
Wir laden Sie ein, an einem Forschungsprojekt teilzunehmen, das untersucht, wie die \
Wortstellung den Eindruck beeinflusst, den Menschen von der Qualität maschineller \
Übersetzungen gewinnen.

Die Studie wird von {researcher_name} durchgeführt ({institution}).

## Muss ich teilnehmen?
Die Teilnahme ist völlig freiwillig, und Sie können jederzeit aussteigen. Diese Information \
soll Ihnen bei der Entscheidung helfen, ob Sie teilnehmen möchten.

## Was müsste ich tun?
Die Teilnahme dauert {duration}. Sie sehen {pairs} Satzpaare, alle auf Deutsch. In jedem Paar \
ist der erste Satz eine automatisch erstellte Übersetzung aus einer anderen Sprache ins \
Deutsche; der zweite ist eine „korrekte“ Übersetzung desselben Satzes durch einen Menschen. \
Zu jedem Paar werden Ihnen zwei Fragen gestellt. Den Originalsatz sehen Sie nicht, seine \
Sprache wird aber neben dem Paar genannt.

Sie können Ihre Teilnahme jederzeit ohne Angabe von Gründen beenden.

## Bleibt meine Teilnahme anonym und vertraulich?
{data_use}

## Was geschieht mit den Ergebnissen der Studie?
Ihre Bewertungen werden statistisch mit automatisch erzeugten Bewertungen der Wortstellung \
verglichen. So lässt sich beurteilen, wie gut die automatischen Bewertungen sind, wobei die \
menschlichen Urteile als maßgeblich gelten.

Die Ergebnisse werden {results_date} ausgewertet. Sie können auch in Fachzeitschriften \
veröffentlicht werden.

## Vergütung
{reward}

## Ist die Teilnahme mit Risiken verbunden?
Mit der Teilnahme an dieser Studie sind keine Risiken bekannt.

## An wen kann ich mich wenden, wenn ich Bedenken habe?
Bitte wenden Sie sich zuerst an die Studienleitung. Sie können Ihre Bedenken auch hier \
vorbringen: {ethics_contact}

## Kontakt
Studienleitung: {researcher_name}, Kontakt: {researcher_email}
Betreuung: {supervisor_name}, Kontakt: {supervisor_email}
"""

DATA_USE = """\
Nur die Forschenden und ihre Betreuenden haben Zugang zu den vollständigen Daten; diese \
werden vertraulich behandelt und ohne Ihren Namen oder Ihre Kontaktdaten gespeichert. Wenn Sie \
im Einwilligungsformular zustimmen (Sie können auch mit Nein antworten und trotzdem \
teilnehmen), werden Ihre Bewertungen und Ihre Angaben zu Ihrer Person (etwa Alter, \
Staatsangehörigkeit und Sprachen, aber niemals Ihr Name oder eine Plattform-Kennung) in einem \
anonymisierten, öffentlichen Datensatz für künftige Forschung veröffentlicht. Bis zur \
Veröffentlichung der Daten können Sie jederzeit über den Link unten auf jeder Seite \
aussteigen: Alles, was Sie angegeben haben, wird dann sofort gelöscht.\
"""

CONSENT_INTRO = """\
## Titel des Projekts
{project_title}

## Studienleitung
{researcher_name} {researcher_email}

## Betreuung
{supervisor_name} {supervisor_email}

Die ethisch einwandfreie Durchführung von Forschung ist uns sehr wichtig. Bitte lesen Sie \
daher die folgenden Punkte, bevor Sie antworten. Mit Ihren Antworten unten halten Sie fest, \
ob Sie mit der Teilnahme an der Studie einverstanden sind.

## Was mit Ihren Daten geschieht
{data_use}

Bitte beantworten Sie jede Aussage zur Erhebung und Verwendung der Forschungsdaten. Aussagen, \
die als „freiwillig“ gekennzeichnet sind, können Sie mit Nein beantworten, ohne dass dies Ihre \
Teilnahme berührt.
"""

CONSENT_STATEMENTS = [
    "Ich habe die Teilnehmerinformation gelesen und verstanden.",
    "Ich hatte Gelegenheit, Fragen zur Studie zu stellen.",
    "Mir ist bewusst, dass ich jederzeit ohne Angabe von Gründen aus der Studie aussteigen kann.",
    "Mir ist bewusst, dass meine Daten vertraulich behandelt und ohne persönliche Kennungen "
    "gespeichert werden und dass nur die Forschenden und ihre Betreuenden Zugang zu den "
    "vollständigen Daten haben.",
    "Ich bin damit einverstanden, dass meine anonymisierten Antworten in einem öffentlichen "
    "Datensatz für weitere Forschung durch andere Forschende veröffentlicht werden.",
    "Ich wurde über die möglichen Risiken dieser Forschung umfassend aufgeklärt und bin mit den "
    "erhaltenen Informationen zufrieden.",
    "Ich bin mit der Teilnahme an der Studie einverstanden.",
]

CONSENT_CLOSING = """\
Die Teilnahme an dieser Forschung ist völlig freiwillig; vor der Teilnahme ist Ihre \
Einwilligung erforderlich.
"""

DEBRIEFING = """\
## Titel des Projekts
{project_title}

## Studienleitung
{researcher_name} {researcher_email}

## Betreuung
{supervisor_name} {supervisor_email}

## Worum es in dem Projekt ging
Dieses Forschungsprojekt untersuchte, wie Menschen Abweichungen in der Wortstellung \
automatischer Übersetzungen wahrnehmen. Mit Ihren Urteilen wollen wir eine Reihe automatischer \
Verfahren zur Qualitätsbewertung daraufhin prüfen, wie gut sie die Bewertungen von Menschen \
vorhersagen.

## Nicht jede „maschinelle Übersetzung“ war eine
Einige der ersten Sätze, die Sie gesehen haben, stammten nicht von einer Maschine: Es war die \
menschliche Übersetzung, in der einige Wörter absichtlich verschoben, vertauscht oder ersetzt \
worden waren. Wir haben Ihnen das vorher nicht gesagt, weil dieses Wissen Ihre Beurteilung \
aller Sätze hätte verändern können. Diese umgestellten Sätze enthalten ein bekanntes, \
gemessenes Maß an Unordnung. Daran können wir prüfen, wie eng menschliche Urteile diesem Maß \
folgen, und so die automatischen Verfahren besser an Ihren Urteilen messen. Ihre Antworten zu \
diesen Sätzen sind so wertvoll wie alle anderen. Falls Sie nun, da Sie dies wissen, nicht \
möchten, dass Ihre Antworten verwendet werden, können Sie über den Link unten auf dieser Seite \
aussteigen; alles, was Sie angegeben haben, wird dann gelöscht.

## Was mit Ihren Daten geschieht
{data_use}

## An wen kann ich mich wenden, wenn ich Bedenken habe?
Bitte wenden Sie sich zuerst an die Studienleitung. Sie können Ihre Bedenken auch hier \
vorbringen: {ethics_contact}

## Kontakt
Studienleitung: {researcher_name}, Kontakt: {researcher_email}
Betreuung: {supervisor_name}, Kontakt: {supervisor_email}
"""

INSTRUCTIONS = """\
## Was Sie sehen werden
Jede Seite zeigt ein Paar deutscher Sätze. Der erste Satz ist eine automatisch erstellte \
Übersetzung; der zweite ist eine sorgfältige Übersetzung desselben Satzes durch einen \
Menschen, die Sie als korrekt ansehen können. Zu jedem Paar beantworten Sie die beiden Fragen \
unten, jeweils auf einer Skala von 1 bis 5, deren Enden beschriftet sind.

## Wie Sie antworten
Die erste Frage betrifft die Bedeutung: Stellen Sie sich vor, Sie könnten nur den ersten Satz \
lesen, und beurteilen Sie, wie gut seine Bedeutung verständlich wird. Die zweite Frage betrifft \
allein die Wortstellung: Sehen Sie von falschen oder fehlenden Wörtern ab und beurteilen Sie \
nur, wie sehr die Reihenfolge der vorhandenen Wörter die Bedeutung verdeckt.

Die zweite Frage ist umgekehrt formuliert („wie sehr trübt“), ihre Enden sind aber so \
beschriftet, dass bei beiden Fragen 5 die beste und 1 die schlechteste Antwort ist.

## Zuerst eine Übung
Die nächste Seite zeigt ein Übungspaar: Ihre Antworten darauf werden nicht für die Forschung \
verwendet, und nach dem Antworten sehen Sie, wie die Fragen auf dieses Paar anzuwenden sind.
"""

QUESTIONS = {
    "holistic_question": "Wie schwer wäre es, die Bedeutung des zweiten Satzes zu erfassen, "
    "wenn Ihnen nur der erste gezeigt würde?",
    "holistic_low": "Sehr schwer",
    "holistic_high": "Sehr leicht",
    "order_question": "Wie sehr trübt allein die Reihenfolge der Wörter die Bedeutung des "
    "ersten Satzes?",
    "order_low": "Enorm",
    "order_high": "Überhaupt nicht",
}
