"""The participant documents of the thesis (McCaffery 2017, Appendix A), word for word.

They are the defaults of a new study and can be edited per study. Format: paragraphs separated
by blank lines; a line starting with "## " is a heading; single line breaks are kept. The
researchers' contact details were placeholders in the source and are study settings here:
{researcher_name}, {researcher_email}, {supervisor_name} and {supervisor_email} are filled in
from the study when a page is shown.
"""

from __future__ import annotations

INFORMATION_SHEET = """\
## Project Title
Human Judgements of Word Order in Machine Translation

## What is the study about?
We invite you to participate in a research project about the effect word ordering can have on \
humans' impressions of the quality of machine-produced translations.

This study is being conducted as part of my, {researcher_name}'s PhD Thesis in the School of \
Computer Science.

## Do I have to take part?
This study is entirely voluntary, and you are free to withdraw at any time. This sheet has been \
written to help you decide if you would like to take part.

## What would I be required to do?
The study will run for one hour. During this hour you will be provided with a number of \
sentences, all in English, which have been produced by automatic translation systems from \
various other languages. For each sentence, you will also be given a 'correct' translation \
produced by a human, and will be asked to rate the similarities between the two. For \
simplicity, you will not have the original sentence, though the original language will be \
identified alongside the sentence.

You will receive 50 sentences in total, and will have an hour to do as many as you are able. \
You are free to withdraw your participation at any point in the study without providing a \
reason.

## Will my participation be Anonymous and Confidential?
Only the researcher(s) and supervisor(s) will have access to the full data which will be kept \
strictly confidential. However, after removing any information which could identify you, we \
would like to publish the anonymised responses from this survey, to be used for future \
scholarly purposes. This will allow us to produce a reliable resource for researchers who want \
to further investigate this area.

## Storage and Destruction of Data Collected
The full data we collect will be accessible by the researcher(s) and supervisor(s) involved in \
this study only, unless explicit consent for wider access is given by means of the consent \
form. The full data will be stored for a period of at most 2 years before being destroyed, in \
an anonymised format on a computer within the School of Computer Science. If you give consent, \
we will also compile the scores you provide, along with your age, nationality and native \
language, into a resource which will be given out on request to future researchers.

## What will happen to the results of the research study?
The ratings you provide will be statistically compared with automatically-generated ratings on \
word order quality. This will be used to assess the quality of the automatic judgements, with \
the human ones assumed to be correct.

The results will be finalised during 2017 and written up as part of the researcher's PhD \
Thesis. They may also be published in paper format.

## Reward
You will be given a £5 Amazon voucher for your participation in this survey.

## Are there any potential risks to taking part?
There are no known risks associated with participation in this study.

## Questions
You will have the opportunity to ask any questions in relation to this project before \
completing a Consent Form.

## Consent and Approval
This research proposal has been scrutinised and been granted Ethical Approval through the \
University ethical approval process.

## What should I do if I have concerns about this study?
A full outline of the procedures governed by the University Teaching and Research Ethical \
Committee is available at http://www.st-andrews.ac.uk/utrec/guidelinespolicies/complaints/

## Contact Details
Researcher: {researcher_name} Contact Details: {researcher_email}
Supervisor: {supervisor_name} Contact Details: {supervisor_email}
"""

CONSENT_INTRO = """\
## Project Title
Human Judgements of Word Order in Machine Translation

## Researcher(s) Name(s)
{researcher_name} {researcher_email}

## Supervisors Names
{supervisor_name} {supervisor_email}

The University of St Andrews attaches high priority to the ethical conduct of research. We \
therefore ask you to consider the following points before signing this form. Your signature \
confirms that you are happy to participate in the study.

## What is Coded Data?
The term 'Coded Data' refers to when data collected by the researcher is identifiable as \
belonging to a particular participant but is kept with personal identifiers removed. The \
researcher(s) retain a 'key' to the coded data which allows individual participants to be \
re-connected with their data at a later date. The un-coded data is kept confidential to the \
researcher(s) (and Supervisors). If consent is given to archive data (see consent section of \
form) the participant may be contacted in the future by the original researcher(s) or other \
researcher(s).

## Consent
The purpose of this form is to ensure that you are willing to take part in this study and to \
let you understand what it entails. Signing this form does not commit you to anything you do \
not wish to do and you are free to withdraw at any stage.

Material gathered during this research will be coded, with the full information kept \
confidentially and securely within the School of Computer Science by the researcher, with only \
the researcher and supervisor having access.

The coded information, after any features which could be used to identify you have been \
removed, will then be made publicly available as a resource for future researchers.

Please answer each statement concerning the collection and use of the research data.
"""

CONSENT_STATEMENTS = [
    "I have read and understood the information sheet.",
    "I have been given the opportunity to ask questions about the study.",
    "I have had my questions answered satisfactorily.",
    "I understand that I can withdraw from the study at any time without having to give an "
    "explanation.",
    "I understand that my data will be confidential and that it will contain identifiable "
    "personal data but will be stored with personal identifiers removed by the researcher and "
    "that only the researcher/supervisor will be able to decode this information as and when "
    "necessary.",
    "I agree to my anonymised data (in line with conditions outlined above) being kept by the "
    "researcher and being archived and used for further research projects / by other bona fide "
    "researchers.",
    "I have been made fully aware of the potential risks associated with this research and am "
    "satisfied with the information provided.",
    "I agree to take part in the study.",
]

CONSENT_CLOSING = """\
Participation in this research is completely voluntary and your consent is required before you \
can participate in this research. If you decide at a later date that data should be destroyed \
we will honour your request in writing.
"""

# "are outline on their website" and "researchers and or Supervisor" are in the original.
DEBRIEFING = """\
## Project Title
Human Judgements of Word Order in Machine Translation

## Researcher(s) Name(s)
{researcher_name} {researcher_email}

## Supervisor's Name
{supervisor_name} {supervisor_email}

## Nature of Project
This postgraduate research project was conducted to investigate how humans perceive word order \
variations in automatic translations. With the judgements you have provided, we intend to \
evaluate a number of automatic quality assessment tools to see how well they can predict scores \
given by humans. This will give us insights into how humans interpret translations, and also \
give us a reliable measure of confidence in the quality of translations produced now and in the \
future. An anonymized version of the data we collected, including all the information you enter \
on the survey but without your name or contact details, will also be made available upon \
request to other researchers for further investigation in this field, provided this was \
consented to within the consent form.

## Storage of Data
As outlined in the Participant Information Sheet your personal data will now be retained \
securely within Computer Science until an anonymised version of the data is published, within \
the coming two years. The anonymised data, including nationalities and scores, may then be used \
for future scholarly purposes without further contact or permission if you have given \
permission on the Consent Form. If you no longer wish for your data to be used in this manner \
you are free to withdraw your consent by contacting any of the researchers and or Supervisor.

## What should I do if I have concerns about this study?
A full outline of the procedures governed by the University Teaching and Research Ethical \
Committee are outline on their website - \
http://www.st-andrews.ac.uk/utrec/guidelinespolicies/complaints/

## Contact Details
Researcher: {researcher_name} Contact Details: {researcher_email}
Supervisor: {supervisor_name} Contact Details: {supervisor_email}
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

# The cover page's "About You" questions (§1.1-1.8).
ABOUT_YOU = {
    "english_first": "Is English your first language?",
    "english_years": "If not, how long would you say you have been speaking it fluently?",
    "languages": "Please indicate the languages you speak (including English), along with your "
    "fluency level and any qualifications you have achieved in each.",
    "gender": "What gender best describes you?",
    "nationality": "What nationality do you feel best represents you?",
    "education": "What is the highest level of education you have completed?",
    "reading_disability": "Do you have any disabilities which could impact your reading, "
    "e.g. dyslexia?",
    "grammar_attention": "To what extent would you say that you notice grammar and sentence "
    "structure in everyday life?",
    "age": "How old are you?",
}
GRAMMAR_LOW = "It doesn't affect me at all"
GRAMMAR_HIGH = "Correct use of language is important"
EDUCATION_LABELS = {
    "school": "School or none",
    "college": "College diploma",
    "undergraduate": "Undergraduate",
    "masters": "Masters degree",
    "phd": "Ph.D. or higher",
}

PLACEHOLDERS = {
    "{researcher_name}": ("researcher_name", "[researcher's name]"),
    "{researcher_email}": ("researcher_email", "[researcher's e-mail]"),
    "{supervisor_name}": ("supervisor_name", "[supervisor's name]"),
    "{supervisor_email}": ("supervisor_email", "[supervisor's e-mail]"),
}


# Callables, so migrations refer to them instead of copying the texts.
def information_sheet() -> str:
    return INFORMATION_SHEET


def consent_intro() -> str:
    return CONSENT_INTRO


def consent_closing() -> str:
    return CONSENT_CLOSING


def debriefing() -> str:
    return DEBRIEFING


def sample_holistic_note() -> str:
    return SAMPLE_HOLISTIC_NOTE


def sample_order_note() -> str:
    return SAMPLE_ORDER_NOTE


def fill(text: str, contacts) -> str:
    """Put a study's contact details (attributes of `contacts`) into the placeholders."""
    for placeholder, (attribute, missing) in PLACEHOLDERS.items():
        text = text.replace(placeholder, getattr(contacts, attribute, "") or missing)
    return text


def blocks(text: str) -> list[tuple[str, str]]:
    """Split a document into ("h", heading) and ("p", paragraph) blocks, in order."""
    result = []
    for chunk in text.strip().split("\n\n"):
        lines = chunk.strip().splitlines()
        if lines and lines[0].startswith("## "):
            result.append(("h", lines[0][3:].strip()))
            lines = lines[1:]
        if lines:
            result.append(("p", "\n".join(line.strip() for line in lines)))
    return result
