"""The participant documents in English, after the thesis's (McCaffery 2017, Appendix A), in the
format wojdb/core/texts/__init__.py describes; and the short texts of the pages (about-you
questions, practice feedback), English message ids marked with `N_`, translated where a page
shows them through Django's catalogues (survey/locale/)."""

from wojdb.core.texts import N_, Nn_

INFORMATION_SHEET = """\
## Project Title
{project_title}

## What is the study about?
We invite you to participate in a research project about the effect word ordering can have on \
humans' impressions of the quality of machine-produced translations.

This study is being conducted by {researcher_name} at {institution}.

## Do I have to take part?
This study is entirely voluntary, and you are free to withdraw at any time. This sheet has been \
written to help you decide if you would like to take part.

## What would I be required to do?
Taking part takes {duration}. You will be shown {pairs} pairs of sentences, all in English. In \
each pair, the first sentence is a translation into English produced automatically from another \
language; the second is a 'correct' translation of the same sentence produced by a human. You \
will be asked two questions about each pair. You will not see the original sentence, though \
its language is named alongside the pair.

You are free to withdraw your participation at any point in the study without providing a \
reason.

## Will my participation be Anonymous and Confidential?
{data_use}

## What will happen to the results of the research study?
The ratings you provide will be statistically compared with automatically-generated ratings on \
word order quality. This will be used to assess the quality of the automatic judgements, with \
the human ones assumed to be correct.

The results will be written up {results_date}. They may also be published in paper format.

## Reward
{reward}

## Are there any potential risks to taking part?
There are no known risks associated with participation in this study.

## What should I do if I have concerns about this study?
Please contact the researcher first. You can also raise concerns with: {ethics_contact}

## Contact Details
Researcher: {researcher_name} Contact Details: {researcher_email}
Supervisor: {supervisor_name} Contact Details: {supervisor_email}
"""

# What happens to the data: one text, shown on the information sheet, the consent form, the
# debriefing and the withdrawal page, so they cannot disagree.
DATA_USE = """\
Only the researcher(s) and supervisor(s) have access to the full data, which is kept \
confidential and stored without your name or contact details. If you agree to it on the \
consent form (you may say No and still take part), your ratings and the details you give \
about yourself (such as age, nationality and languages, but never your name or any \
platform id) are released in an anonymised public dataset for future research. You can \
withdraw at any time before the data is released, using the link at the bottom of every \
page: everything you gave is then deleted straight away.\
"""

CONSENT_INTRO = """\
## Project Title
{project_title}

## Researcher(s) Name(s)
{researcher_name} {researcher_email}

## Supervisors Names
{supervisor_name} {supervisor_email}

We attach high priority to the ethical conduct of research. We therefore ask you to consider \
the following points before answering. Your answers below record whether you are happy to \
participate in the study.

## What happens to your data
{data_use}

Please answer each statement concerning the collection and use of the research data. \
Statements marked "optional" may be answered No without affecting your participation.
"""

CONSENT_STATEMENTS = [
    "I have read and understood the information sheet.",
    "I have been given the opportunity to ask questions about the study.",
    "I understand that I can withdraw from the study at any time without having to give an "
    "explanation.",
    "I understand that my data will be confidential and stored with personal identifiers "
    "removed, and that only the researcher/supervisor have access to the full data.",
    "I agree to my anonymised answers being released in a public dataset for further research "
    "by other researchers.",
    "I have been made fully aware of the potential risks associated with this research and am "
    "satisfied with the information provided.",
    "I agree to take part in the study.",
]
CONSENT_CLOSING = """\
Participation in this research is completely voluntary and your consent is required before you \
can participate in this research.
"""

DEBRIEFING = """\
## Project Title
{project_title}

## Researcher(s) Name(s)
{researcher_name} {researcher_email}

## Supervisor's Name
{supervisor_name} {supervisor_email}

## Nature of Project
This research project was conducted to investigate how humans perceive word order variations \
in automatic translations. With the judgements you have provided, we intend to evaluate a \
number of automatic quality assessment tools to see how well they can predict scores given by \
humans.

## Not every "machine translation" was one
Some of the first sentences you were shown were not produced by a machine: they were the \
human translation with some of its words deliberately moved, swapped or replaced. We did not \
tell you beforehand because knowing it could have changed how you judged every sentence. These \
rearranged sentences have a known, measured amount of disorder, which lets us check how \
closely human judgements follow the amount of disorder, and so how well the automatic tools \
are tested against you. Your answers on them are as valuable as all the others. If you would \
rather your answers were not used now that you know this, you can withdraw using the link at \
the bottom of this page, and everything you gave will be deleted.

## What happens to your data
{data_use}

## What should I do if I have concerns about this study?
Please contact the researcher first. You can also raise concerns with: {ethics_contact}

## Contact Details
Researcher: {researcher_name} Contact Details: {researcher_email}
Supervisor: {supervisor_name} Contact Details: {supervisor_email}
"""

INSTRUCTIONS = """\
## What you will see
Each page shows a pair of English sentences. The first sentence is a translation produced \
automatically; the second is a careful translation of the same sentence made by a human, \
which you can take as correct. You answer the two questions below about each pair, each on a \
scale from 1 to 5, labelled at its ends.

## How to answer
The first question is about the meaning: imagine you could only read the first sentence, and \
judge how well its meaning comes through. The second question is about the order of the words \
alone: set aside wrong or missing words, and judge only how much the order of the words that \
are there hides the meaning.

The second question is worded the other way round ("how much does it cloud"), but its ends \
are labelled so that on both questions 5 is the best answer and 1 the worst.

## Practice first
The next page is a practice pair: your answers to it are not used in the research, and after \
answering you will see how the questions apply to it.
"""

# The explanations printed under the thesis's hand-written sample sentence (cover page, §2).
SAMPLE_HOLISTIC_NOTE = (
    "There are numerous mistakes in the sentence, which could make its meaning hard to grasp. "
    "Does the correct meaning, shown in the second sentence, still clearly exist? If not, is it "
    "impossible to work it out?"
)
SAMPLE_ORDER_NOTE = (
    "The only ordering mistake is swapping 'dog' and 'vet/doctor' - but this mistake could be "
    "very confusing. Consider how many words have been moved and how significantly this "
    "obscures the meaning of the sentence."
)

# The cover page's "About You" questions (§1.1-1.8); %(language)s is the study's language.
ABOUT_YOU = {
    "target_first": N_("Is %(language)s your first language?"),
    "target_years": N_("If not, how long would you say you have been speaking it fluently?"),
    "languages": N_(
        "Please indicate the languages you speak (including %(language)s), along with your "
        "fluency level and any qualifications you have achieved in each."
    ),
    "gender": N_("What gender best describes you?"),
    "nationality": N_("What nationality do you feel best represents you?"),
    "education": N_("What is the highest level of education you have completed?"),
    "reading_disability": N_(
        "Do you have any disabilities which could impact your reading, e.g. dyslexia?"
    ),
    "grammar_attention": N_(
        "To what extent would you say that you notice grammar and sentence structure in "
        "everyday life?"
    ),
    "age": N_("How old are you?"),
}
GRAMMAR_LOW = N_("It doesn't affect me at all")
GRAMMAR_HIGH = N_("Correct use of language is important")
GENDER_LABELS = {
    "male": N_("Male"),
    "female": N_("Female"),
    "other": N_("Other"),
    "not_say": N_("Prefer not to say"),
}
EDUCATION_LABELS = {
    "school": N_("School or none"),
    "college": N_("College diploma"),
    "undergraduate": N_("Undergraduate"),
    "masters": N_("Masters degree"),
    "phd": N_("Ph.D. or higher"),
}
# The questions and scale labels of a new study (Study fields).
QUESTIONS = {
    "holistic_question": "How difficult would it be to grasp the meaning of the second "
    "sentence if you were only shown the first?",
    "holistic_low": "Very difficult",
    "holistic_high": "Very easy",
    "order_question": "How much does the ordering of the words on its own cloud the meaning of "
    "the first sentence?",
    "order_low": "Enormously",
    "order_high": "Not at all",
}


# Feedback on the practice pair, written from the item itself. It explains the two questions on
# this pair without saying how its first sentence was made: that some "machine translations"
# are rearranged human ones is disclosed in the debriefing only (it would change every answer).
PRACTICE_HOLISTIC = N_(
    "Read the first sentence as if you had never seen the second. Can you still tell what the "
    "second sentence says? The easier that is, the higher the answer."
)
PRACTICE_ORDER = N_(
    "For this question, set aside wrong or missing words and look only at whether the words "
    "that are there come in an order that hides the meaning: the less it does, the higher the "
    "answer."
)
PRACTICE_OUT_OF_PLACE = Nn_(
    "Here %(count)d word of the first sentence is out of place. Consider how many words are out "
    "of place and how much that obscures the meaning: the more it does, the lower the answer.",
    "Here %(count)d words of the first sentence are out of place. Consider how many words are "
    "out of place and how much that obscures the meaning: the more it does, the lower the "
    "answer.",
)
PRACTICE_IN_ORDER = N_(
    "Here the words come in a natural order, however wrong some of them are: the order hides "
    "nothing."
)
# And on the words marked out of place, in a study with word marks (the same words, named).
PRACTICE_MARKS = N_("The words out of place in the first sentence are: %(words)s.")
#: One of those words, quoted as the language quotes (it may end in punctuation of its own).
PRACTICE_MARKS_WORD = N_("“%(word)s”")
PRACTICE_MARKS_NONE = N_("No word of the first sentence is out of place.")
PRACTICE_MARKS_UNKNOWN = N_(
    "Mark the words that you find out of place in the first sentence; there is no single right "
    "answer."
)
