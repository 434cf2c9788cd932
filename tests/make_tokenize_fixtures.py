#!/usr/bin/python3
"""Writes tests/fixtures/tokenize_cases.json: how each tokenize mode (web/src/io/tokenize.js) must
split Chinese, Japanese, English, mixed text and emoji, from ICU through Debian's python3-icu
(apt-get install python3-icu), independently of the JS engine's Intl.Segmenter:
    word   ICU's word break iterator (root locale: its dictionaries segment Chinese and Japanese),
           the segments that are not only whitespace
    char   ICU's character (grapheme cluster) break iterator, whitespace left out: an emoji with
           a skin tone, a ZWJ family or a flag is one character, as a reader sees it
    space  Python's str.split() (any run of whitespace)
Run:   /usr/bin/python3 tests/make_tokenize_fixtures.py [--out DIR]
ICU 72 wrote the committed file; every case was also read by hand.
"""

import argparse
import json
import os

import icu

SENTENCES = [
    "我爱北京天安门。",
    "今天天气很好，我们去公园散步吧！",
    "注意力机制是深度学习的重要组成部分",
    "私は東京に住んでいます。",
    "猫が好きです",
    "Hello, world! It's a fine day.",
    "the cat sat on the mat",
    "我爱 JavaScript 和 Python3！",
    "今天😀很开心👍🏽",
    "👨‍👩‍👧 family 🇨🇳 flag",
]


def segments(text, iterator):
    iterator.setText(text)
    u = icu.UnicodeString(text)
    bounds = [0] + list(iterator)
    return [str(u[bounds[i]:bounds[i + 1]]) for i in range(len(bounds) - 1)]


def main():
    parser = argparse.ArgumentParser()
    default = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
    parser.add_argument("--out", default=default)
    out = parser.parse_args().out
    root = icu.Locale.getRoot()
    cases = []
    for text in SENTENCES:
        words = [s for s in segments(text, icu.BreakIterator.createWordInstance(root)) if s.strip() != ""]
        chars = [s for s in segments(text, icu.BreakIterator.createCharacterInstance(root)) if s.strip() != ""]
        cases.append({"text": text, "word": words, "char": chars, "space": text.split()})
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "tokenize_cases.json"), "w", encoding="utf-8", newline="\n") as f:
        json.dump({"icu": icu.ICU_VERSION, "cases": cases}, f, ensure_ascii=False, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
