"""Who a Chinese sentence is about, where dialogue makes it hard: a name addressed in speech, a
question, and a pronoun inside someone's words (which must not carry the narrative's subject)."""

from __future__ import annotations

import re

from wikikv.compile import model
from wikikv.compile.model import DocAnalysis
from wikikv.compile.subjects import CARRY, HEADING, NONE, TOPIC, sentence_roles
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


def test_a_name_in_someone_elses_quoted_claim_is_not_the_subject() -> None:
    # a critic's sentence, quoted in a note: what the critic says of her, not a fact of hers
    text = "〔8〕见某君的文章：“她是旧时代的人物。祥林嫂是二重性的反动的人物。”"
    assert role_of(text, "二重性") == NONE
    narrated = "后来祥林嫂是一个很能做事的女工。"
    assert role_of(narrated, "很能做事") == 0


def test_a_line_without_punctuation_is_no_sentence_of_anyone() -> None:
    # the text's title line (and a date or signature line) says nothing of the name in it
    text = "祥林嫂的故事\n祥林嫂到了镇上。"
    assert role_of(text, "的故事") == HEADING
    assert role_of(text, "到了镇上") >= 0  # its own mention is the subject


def test_a_new_note_stops_the_chain_of_subjects() -> None:
    text = (
        "〔4〕祥林嫂是鲁镇的女工。\n"
        "〔5〕Ｌｏｍｂｒｏｓｏ龙勃罗梭（1836—1909），意大利精神病学者。他认为犯罪是遗传的结果。"
    )
    sents, roles = roles_of(text)
    assert roles[0] == 0  # the note's head word is the subject of its first sentence
    assert roles[1] == TOPIC  # a note on a head word without a page
    # its 他 is 龙勃罗梭: resolved in the model, the chain stops at TOPIC
    assert roles[2] == CARRY
    doc = DocAnalysis(id="d", title="d", lang="zh", fingerprint="", sentences=[], roles=roles)
    keyed: list[str | None] = [NAME]
    subjects_of = model._subjects(doc, keyed, {NAME}, lambda key: "person")
    assert subjects_of == {0: NAME}


def test_a_quotation_over_several_paragraphs_is_speech_in_its_middle() -> None:
    # the later paragraphs do not reopen the quote; it closes at the end of the last one
    text = (
        "文中有这样的对于我的警告：\n“他到了镇上，就不说话了。\n"
        "祥林嫂竟跑出了现社会。她把镜子藏起来了。\n祥林嫂躲避了。”\n祥林嫂到了镇上。"
    )
    assert role_of(text, "跑出了现社会") == NONE
    assert role_of(text, "她把镜子") == NONE
    assert role_of(text, "祥林嫂躲避了") == NONE
    assert role_of(text, "到了镇上。") >= 0  # narration again after the quotation closes


def test_a_name_that_says_when_is_not_the_subject() -> None:
    text = "〔7〕王某（1883—1915），浙江人。祥林嫂后任绍兴的女工头。"
    assert role_of(text, "后任绍兴") == NONE
    assert role_of("祥林嫂后来到了镇上。", "后来到了") >= 0  # 后来 'later': she is the subject


def test_a_place_that_says_whose_people_or_papers_is_no_subject() -> None:
    """ "北京各学校、各团体五万余人当日在天安门集会" is about the crowd; "北京真是人海" about 北京."""

    def place_role(sentence: str) -> int:
        sents = split_sentences(sentence, "zh")
        at = sentence.index("北京")
        mention = MentionOut("北京", "北京", "place", 0, at, at + 2)
        return sentence_roles(sentence, sents, [mention], "zh")[0]

    for modified in (
        "北京各学校、各团体五万余人当日在天安门集会。",
        "北京学生因章士钊禁止纪念国耻，于九日提出要求。",
        "北京女子师范大学蔷薇社编辑。",
        "北京《京报》附送，后停刊。",
    ):
        assert place_role(modified) == NONE, modified
    for own in ("北京真是人海，情形可大不相同了。", "北京暖和起来了。"):
        assert place_role(own) == 0, own
