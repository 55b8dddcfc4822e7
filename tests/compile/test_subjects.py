"""Who a Chinese sentence is about, where dialogue makes it hard: a name addressed in speech, a
question, and a pronoun inside someone's words (which must not carry the narrative's subject)."""

from __future__ import annotations

import re

from wikikv.compile.subjects import CARRY, NONE, sentence_roles
from wikikv.llm.base import MentionOut
from wikikv.text.digest import Sentence, split_sentences

NAME = "祥林嫂"


def roles_of(text: str) -> tuple[list[Sentence], list[int]]:
    sents = split_sentences(text, "zh")
    mentions = []
    for m in re.finditer(NAME, text):
        idx = next(i for i, s in enumerate(sents) if s.start <= m.start() < s.end)
        mentions.append(MentionOut(NAME, NAME, "person", idx, m.start(), m.end()))
    return sents, sentence_roles(text, sents, mentions, "zh")


def role_of(text: str, sentence: str) -> int:
    sents, roles = roles_of(text)
    return next(r for s, r in zip(sents, roles, strict=True) if sentence in s.text)


def test_the_narrated_subject_is_the_subject() -> None:
    text = "祥林嫂除烧火之外，没有别的事。"
    assert role_of(text, "烧火") == 0


def test_a_name_addressed_in_speech_is_not_the_subject() -> None:
    text = "四婶慌忙大声说：\n“祥林嫂，你放着罢！我来摆。”"
    assert role_of(text, "你放着罢") == NONE


def test_a_question_asserts_nothing_about_its_subject() -> None:
    text = "“祥林嫂怎么这样了？”\n祥林嫂叹息着说。"
    assert role_of(text, "怎么这样") == NONE
    assert role_of(text, "叹息") != NONE


def test_a_pronoun_inside_speech_does_not_carry_the_speaker() -> None:
    text = "“我真傻，”祥林嫂接着说，“我叫阿毛，没有应。他是很听话的，我的话句句听。”"
    assert role_of(text, "他是很听话的") == NONE
    # The same pronoun in narration carries the subject on.
    narrated = "祥林嫂到了镇上。她是很听话的。"
    assert role_of(narrated, "她是很听话的") == CARRY
