"""A participant's steps through Django's test client, shared by the security tests."""

from __future__ import annotations

from survey.models import Participant

JSON = {"HTTP_ACCEPT": "application/json"}


def enter(client, study) -> Participant:
    response = client.post(f"/s/{study.slug}/")
    assert response.status_code == 302, response.status_code
    return Participant.objects.get(token=response["Location"].split("/")[2])


def consent(client, participant, statements: int = 2):
    data = {f"statement_{n}": "yes" for n in range(1, statements + 1)}
    return client.post(f"/p/{participant.token}/consent/", data)


def about_data(**answers) -> dict:
    return {"languages-TOTAL_FORMS": "0", "languages-INITIAL_FORMS": "0"} | answers


def started(client, study) -> Participant:
    """A participant who has consented and passed the about-you page."""
    participant = enter(client, study)
    consent(client, participant)
    client.post(f"/p/{participant.token}/about/", about_data())
    participant.refresh_from_db()
    return participant


def item_url(participant, position: int) -> str:
    return f"/p/{participant.token}/item/{position}/"


def item_id(participant, position: int) -> int:
    return participant.questionnaire.entries.get(position=position).item_id
