"""How an answer's words out of place change a rating (participation.answered), over any
sequence of answers: the marks are the last answer's, each word kept with the time it was first
marked in its latest run of being marked, and each change after the first answer a revision."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from survey.models import Rating
from survey.participants.participation import Answer, answered

WORDS = ["Yesterday", "he", "went", "to", "the", "market", "."]
START = datetime(2026, 12, 6, 12, 0, tzinfo=UTC)
# An answer: positions ticked (sorted, each once), () for "none", None for nothing ticked.
ANSWERS = st.one_of(
    st.none(),
    st.just(()),
    st.sets(st.integers(0, len(WORDS) - 1), min_size=1).map(lambda s: tuple(sorted(s))),
)


@given(st.lists(ANSWERS, min_size=1, max_size=8))
def test_the_marks_follow_the_answers_and_keep_when_each_word_was_marked(answers):
    rating = Rating(revisions=0)
    first_marked: dict[int, datetime] = {}
    previous, revisions = None, 0
    for minute, given_marks in enumerate(answers):
        now = START + timedelta(minutes=minute)
        saved, changes = answered(rating, Answer(marks=given_marks, marked=True), now, WORDS)
        if given_marks != previous:
            revisions += previous is not None
            assert saved.changed and changes["marks"] == rating.marks
        else:
            assert changes == {}
        for position in set(first_marked) - set(given_marks or ()):
            del first_marked[position]  # unmarked: a later mark is a new one
        for position in given_marks or ():
            first_marked.setdefault(position, now)
        previous = given_marks
        if given_marks is None:
            assert rating.marks is None
        else:
            assert rating.marks == [[p, WORDS[p], first_marked[p].isoformat()] for p in given_marks]
        assert rating.revisions == revisions


def test_a_scale_answer_alone_leaves_the_marks_as_they_are():
    rating = Rating(revisions=0, marks=[[2, "went", START.isoformat()]])
    saved, changes = answered(rating, Answer(holistic=4), START + timedelta(minutes=1))
    assert rating.marks == [[2, "went", START.isoformat()]] and "marks" not in changes
    assert (rating.holistic, rating.revisions) == (4, 0)
