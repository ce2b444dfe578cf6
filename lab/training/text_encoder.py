"""The default model's tokenizer: one token per vocabulary word (not per byte), saved with the pipeline.

Words the vocabulary lists and the caption grammar's own words get ids; anything else reads as [UNK]. Text
is NFKC-normalised and lower-cased, and everything but letters separates words, so "Cat!" is "cat".
"""

from __future__ import annotations

from typing import Any

from lab.training.architecture import MAX_TOKENS, TEXT_CONFIG
from lab.world.captions import GRAMMAR_WORDS
from lab.world.vocabulary import MOTIONS, SETTINGS, SUBJECTS

SPECIAL = ("[PAD]", "</s>", "[UNK]")


def words() -> list[str]:
    known = {
        w for entries in (SUBJECTS, SETTINGS, MOTIONS) for e in entries for p in e.words for w in p.split()
    }
    return sorted(known | set(GRAMMAR_WORDS))


def build_tokenizer() -> Any:
    from tokenizers import Regex, Tokenizer, models, normalizers, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast

    vocab = {token: i for i, token in enumerate((*SPECIAL, *words()))}
    tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.Sequence([normalizers.NFKC(), normalizers.Lowercase()])
    tokenizer.pre_tokenizer = pre_tokenizers.Split(Regex("[^a-z]+"), behavior="removed")
    tokenizer.post_processor = processors.TemplateProcessing(single="$A </s>", special_tokens=[("</s>", 1)])
    return PreTrainedTokenizerFast(
        tokenizer_object=tokenizer,
        pad_token="[PAD]",
        eos_token="</s>",
        unk_token="[UNK]",
        model_max_length=MAX_TOKENS,
    )


def build_text_encoder(vocab_size: int) -> Any:
    from transformers import T5Config, T5EncoderModel

    return T5EncoderModel(T5Config(vocab_size=vocab_size, **TEXT_CONFIG))
