"""Names a person sets that other people see (seat names, display names): what they may not
hold, and how a name stored before that rule is made harmless where it reaches others.

Refused: every character whose Unicode category is
  Cc  controls: C0 (U+0000-001F: tab, LF, CR, ...), DEL (U+007F) and C1 (U+0080-009F);
  Cf  invisible formatting: bidi embeddings, overrides and isolates (U+202A-202E,
      U+2066-2069), marks (U+200E, U+200F, U+061C), the zero-width space (U+200B), the word
      joiner and invisible operators (U+2060-2064), the byte order mark (U+FEFF), the soft hyphen
      (U+00AD), tag characters (U+E0001, U+E0020-E007F) and the rest of the category;
  Cs  lone surrogates (JSON's ``\\ud800``: no UTF-8 can carry them);
  Zl, Zp  the line and paragraph separators (U+2028, U+2029), which break lines as LF does;
except the zero-width non-joiner and joiner (U+200C, U+200D): Persian and Indic scripts and
emoji sequences (a family, a flag with a rainbow) cannot be written without them.
"""

from __future__ import annotations

import re
import unicodedata

HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
JOINERS = frozenset({"\u200c", "\u200d"})
BREAKS = frozenset({"Cc", "Zl", "Zp"})  #: refused characters that stand between words


def is_hidden(character: str) -> bool:
    """Whether the character controls, hides or reorders text instead of showing a letter."""
    return character not in JOINERS and unicodedata.category(character) in HIDDEN_CATEGORIES


def hidden_characters(text: str) -> list[str]:
    """The refused characters ``text`` holds, as ``U+XXXX``, each once, in order."""
    return list(dict.fromkeys(f"U+{ord(c):04X}" for c in text if is_hidden(c)))


def shown(text: str) -> str:
    """A name stored before the rule, safe for a mail header, a chat line or a notification:
    invisible formatting dropped, each run of line breaks, controls and spaces made one space."""
    kept = "".join(c if not is_hidden(c) else (" " if unicodedata.category(c) in BREAKS else "") for c in text)
    return re.sub(r"\s+", " ", kept).strip()


def for_slack(text: str) -> str:
    """Plain text in a Slack message: &, < and > escaped as Slack asks, so that ``<!channel>``,
    ``<@U123>`` and ``<https://evil|a link>`` show as typed and neither notify nor link."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


#: Discord's markdown: emphasis, code, spoilers, quotes, headings, masked links ``[text](url)``,
#: mentions ``<@id>`` and ``@everyone``. Each is shown as typed when a backslash precedes it.
DISCORD_MARKUP = re.compile(r"([\\*_~`|>#\[\]()<@:-])")


def for_discord(text: str) -> str:
    """Plain text in a Discord message, every markdown character escaped: no masked link, no
    formatting, no mention (the message's ``allowed_mentions`` also pings nobody)."""
    return DISCORD_MARKUP.sub(r"\\\1", text)
