"""The participant documents of wojdb/core/texts/en.py for a study in French: the same facts
and placeholders, written as a French survey would put them (formal "vous")."""

INFORMATION_SHEET = """\
## Titre du projet
{project_title}

## Sur quoi porte l'étude ?
Nous vous invitons à participer à un projet de recherche sur l'influence que l'ordre des mots \
peut avoir sur la façon dont les lecteurs jugent la qualité des traductions produites par une \
machine.

Cette étude est menée par {researcher_name} ({institution}).

## Suis-je obligé(e) de participer ?
Votre participation est entièrement volontaire et vous pouvez vous retirer à tout moment. Ce \
document doit vous aider à décider si vous souhaitez participer.

## Que me demandera-t-on ?
La participation dure {duration}. Vous verrez {pairs} paires de phrases, toutes en français. \
Dans chaque paire, la première phrase est une traduction en français produite automatiquement \
à partir d'une autre langue ; la seconde est une traduction « correcte » de la même phrase, \
faite par une personne. Pour chaque paire, deux questions vous seront posées. Vous ne verrez \
pas la phrase d'origine, mais sa langue est indiquée à côté de la paire.

Vous pouvez mettre fin à votre participation à tout moment, sans avoir à vous justifier.

## Ma participation sera-t-elle anonyme et confidentielle ?
{data_use}

## Que deviendront les résultats de l'étude ?
Vos évaluations seront comparées statistiquement à des évaluations automatiques de l'ordre des \
mots. Cela permettra de mesurer la fiabilité des évaluations automatiques, les jugements \
humains servant de référence.

Les résultats seront rédigés {results_date}. Ils pourront aussi faire l'objet d'une \
publication.

## Rémunération
{reward}

## Y a-t-il des risques à participer ?
Aucun risque lié à la participation à cette étude n'est connu.

## À qui m'adresser si l'étude me pose question ?
Adressez-vous d'abord à la personne qui mène l'étude. Vous pouvez aussi faire part de vos \
préoccupations à : {ethics_contact}

## Contacts
Chercheur ou chercheuse : {researcher_name}, contact : {researcher_email}
Direction de la recherche : {supervisor_name}, contact : {supervisor_email}
"""

DATA_USE = """\
Seuls les chercheurs et leurs encadrants ont accès à l'ensemble des données, qui restent \
confidentielles et sont conservées sans votre nom ni vos coordonnées. Si vous l'acceptez dans \
le formulaire de consentement (vous pouvez répondre Non et participer quand même), vos \
évaluations et les informations que vous donnez sur vous (par exemple votre âge, votre \
nationalité et vos langues, mais jamais votre nom ni aucun identifiant de plateforme) sont \
publiées dans un jeu de données public et anonymisé, pour de futures recherches. Vous pouvez \
vous retirer à tout moment avant la publication des données, grâce au lien figurant en bas de \
chaque page : tout ce que vous avez fourni est alors supprimé immédiatement.\
"""

CONSENT_INTRO = """\
## Titre du projet
{project_title}

## Chercheur(s) ou chercheuse(s)
{researcher_name} {researcher_email}

## Direction de la recherche
{supervisor_name} {supervisor_email}

Nous accordons une grande importance au respect de l'éthique dans la recherche. Nous vous \
demandons donc de prendre connaissance des points suivants avant de répondre. Vos réponses \
ci-dessous indiquent si vous acceptez de participer à l'étude.

## Ce que deviennent vos données
{data_use}

Veuillez répondre à chacune des affirmations concernant la collecte et l'utilisation des \
données de recherche. Vous pouvez répondre Non aux affirmations marquées « facultatif » sans \
que cela affecte votre participation.
"""

CONSENT_STATEMENTS = [
    "J'ai lu et compris la notice d'information.",
    "J'ai eu la possibilité de poser des questions sur l'étude.",
    "Je comprends que je peux me retirer de l'étude à tout moment, sans avoir à me justifier.",
    "Je comprends que mes données resteront confidentielles, qu'elles seront conservées sans "
    "rien qui permette de m'identifier et que seuls les chercheurs et leurs encadrants ont "
    "accès à l'ensemble des données.",
    "J'accepte que mes réponses anonymisées soient publiées dans un jeu de données public, "
    "pour de futures recherches menées par d'autres chercheurs.",
    "J'ai été pleinement informé(e) des risques éventuels liés à cette recherche et les "
    "informations fournies me suffisent.",
    "J'accepte de participer à l'étude.",
]

CONSENT_CLOSING = """\
La participation à cette recherche est entièrement volontaire, et votre consentement est \
nécessaire pour pouvoir y participer.
"""

DEBRIEFING = """\
## Titre du projet
{project_title}

## Chercheur(s) ou chercheuse(s)
{researcher_name} {researcher_email}

## Direction de la recherche
{supervisor_name} {supervisor_email}

## Nature du projet
Ce projet de recherche visait à étudier la façon dont les lecteurs perçoivent les variations \
de l'ordre des mots dans les traductions automatiques. Grâce à vos jugements, nous allons \
évaluer plusieurs outils automatiques d'estimation de la qualité, pour voir dans quelle mesure \
ils prédisent les notes données par des personnes.

## Toutes les « traductions automatiques » n'en étaient pas
Certaines des premières phrases que vous avez vues n'avaient pas été produites par une \
machine : il s'agissait de la traduction humaine, dont certains mots avaient été délibérément \
déplacés, intervertis ou remplacés. Nous ne vous l'avons pas dit à l'avance, car le savoir \
aurait pu changer votre façon de juger toutes les phrases. Le désordre de ces phrases \
réarrangées est connu et mesuré, ce qui nous permet de vérifier à quel point les jugements \
humains suivent ce désordre, et donc de mieux confronter les outils automatiques à vos \
réponses. Vos réponses sur ces phrases ont autant de valeur que toutes les autres. Si, \
sachant cela, vous préférez que vos réponses ne soient pas utilisées, vous pouvez vous retirer \
grâce au lien en bas de cette page : tout ce que vous avez fourni sera supprimé.

## Ce que deviennent vos données
{data_use}

## À qui m'adresser si l'étude me pose question ?
Adressez-vous d'abord à la personne qui mène l'étude. Vous pouvez aussi faire part de vos \
préoccupations à : {ethics_contact}

## Contacts
Chercheur ou chercheuse : {researcher_name}, contact : {researcher_email}
Direction de la recherche : {supervisor_name}, contact : {supervisor_email}
"""

INSTRUCTIONS = """\
## Ce que vous verrez
Chaque page présente une paire de phrases en français. La première est une traduction \
produite automatiquement ; la seconde est une traduction soignée de la même phrase, faite par \
une personne, que vous pouvez considérer comme correcte. Pour chaque paire, vous répondez aux \
deux questions ci-dessous, chacune sur une échelle de 1 à 5 dont les extrémités sont \
indiquées.

## Comment répondre
La première question porte sur le sens : imaginez que vous ne puissiez lire que la première \
phrase, et jugez dans quelle mesure son sens est compréhensible. La seconde question porte \
uniquement sur l'ordre des mots : ne tenez pas compte des mots erronés ou manquants, et jugez \
seulement à quel point l'ordre des mots présents masque le sens.

La seconde question est formulée à l'inverse (« à quel point… brouille-t-il »), mais ses \
extrémités sont étiquetées de sorte que, pour les deux questions, 5 soit la meilleure réponse \
et 1 la moins bonne.

## D'abord un essai
La page suivante présente une paire d'entraînement : vos réponses ne sont pas utilisées dans \
la recherche et, une fois que vous aurez répondu, vous verrez comment les questions \
s'appliquent à cette paire.
"""

QUESTIONS = {
    "holistic_question": "À quel point serait-il difficile de saisir le sens de la seconde "
    "phrase si l'on ne vous montrait que la première ?",
    "holistic_low": "Très difficile",
    "holistic_high": "Très facile",
    "order_question": "À quel point l'ordre des mots, à lui seul, brouille-t-il le sens de la "
    "première phrase ?",
    "order_low": "Énormément",
    "order_high": "Pas du tout",
}
