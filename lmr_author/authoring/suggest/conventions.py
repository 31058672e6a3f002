"""The conventions of papers and research code that the ranking relies on, in one place.

Each set is a few words that mean the same in any paper or repository: the names of
sections, the words every paper uses, how scripts, plots and copied libraries are
named. Nothing here names a particular paper or repository.
"""

from __future__ import annotations


def word_set(text: str) -> frozenset[str]:
    return frozenset(text.split())


# --- words ---------------------------------------------------------------------------

STOP_WORDS = word_set(
    """a an and are as at be by for from has have in is it its of on or that the this to
    was were will with we our which can each these their then than also using use used
    into not but all any one two both such may more most other only over same so some
    there they them thus very when where while how what who whose been being does did
    done however here let via per ie eg et al fig figure table section self cls return
    none true false def args kwargs if else elif range len list dict str int float print
    import tmp val var get set"""
)
# In Unicode order from alpha (sigma twice: the final form comes first).
_GREEK_TEXT = """alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi
omicron pi rho sigma sigma tau upsilon phi chi psi omega"""
GREEK_LETTERS = tuple(_GREEK_TEXT.split())

# --- papers --------------------------------------------------------------------------

# Words every paper uses and that say nothing about its method.
PROSE = word_set(
    """paper work show shown result results propose proposed approach method methods
    experiment experiments experimental perform performance table figure section appendix
    example examples different however first second third following compared compare
    across between based well new given large small number significant significantly
    provide provides consider note see further previous recent recently prior existing
    study studies find found present achieve achieves improve improves improvement
    better best like make makes order way cases case time times due known often many
    much within without would could should might must since while thus hence therefore
    although main key important several various larger smaller high higher low lower
    good theorem lemma proof equation eq equ et al arxiv preprint conference proceedings
    international association university"""
)
# Names of the field that many papers write and few introduce: models, model families,
# benchmarks and tools. A paper that introduces one of them says it in its title.
COMMON_NAMES = word_set(
    """llm llms gpt gpt3 gpt4 chatgpt openai bert roberta llama llama2 llama3 qwen
    mistral vicuna t5 vit clip resnet cnn rnn lstm mlp nlp api gpu gpus cpu sota url http
    https github arxiv imagenet cifar mnist coco squad glue wikitext pytorch tensorflow
    jax huggingface adam adamw sgd relu gelu"""
)
# Capitalised in mid-sentence, yet not names of methods.
NOT_NAMES = word_set(
    """figure fig table tab section sec equation eq appendix algorithm theorem lemma
    proposition corollary definition remark assumption step stage part"""
)

# --- repositories --------------------------------------------------------------------

TEST_DIRS = word_set("test tests testing unit_tests docs doc")  # and unit_test*
# Libraries research repositories copy in whole: their code is not the paper's.
VENDORED_DIRS = word_set(
    """transformers fairseq timm diffusers peft trl accelerate deepspeed megatron apex
    detectron2 mmcv mmdet torchvision allennlp lightning pytorch_lightning datasets
    tokenizers sentencepiece nltk spacy sklearn scipy numpy torch tensorflow keras jax
    flax optax haiku open_clip clip taming third_party thirdparty external externals
    vendor vendored"""
)
# Words that name a copy kept beside the original (in a file, class, function or folder
# name): ``*_reference.py``, ``AdamWReference``, ``loss_ref``, ``old/``, ``backup/``.
COPY_WORDS = word_set(
    """reference references ref refs copy copied backup backups bak old orig baseline
    legacy deprecated unused archive archived snapshot tmp vendored vendor"""
)
# Folders of figures and plots: the paper's pictures, not its method.
FIGURE_DIRS = word_set("figures figure figs fig plots plot plotting visualization viz")
# Folders that show how to use the code: its callers, not the method.
DEMO_DIRS = word_set("examples example demo demos notebooks tutorials tutorial")

# --- functions -----------------------------------------------------------------------

# Words research code names its core computations with.
ROLE_WORDS = word_set(
    """loss objective criterion score scoring reward attention decode decoding metric
    distance similarity divergence probe probing"""
)
# The method a framework calls on its subclasses, by the words of their bases: what a
# module, a layer or an optimizer computes.
FRAMEWORK_ENTRIES = {
    "forward": word_set("module layer model net network loss"),
    "__call__": word_set("module layer model"),
    "call": word_set("layer model"),
    "step": word_set("optimizer"),
}
# What scripts are made of around the method.
DRIVERS = word_set(
    """main parse_args parse_arguments get_args get_parser get_arguments build_parser
    add_args add_arguments cli"""
)
# Calls that declare a script's options (argparse, absl, click): whatever its name, a
# function made of them parses options.
OPTION_CALLS = word_set(
    """add_argument add_argument_group ArgumentParser DEFINE_string DEFINE_integer
    DEFINE_float DEFINE_bool DEFINE_boolean DEFINE_list DEFINE_enum"""
)
LOOPS = word_set("train fit evaluate eval test validate run")
IO_WORDS = word_set(
    """plot draw visualize visualise show save load download read write print log dump
    export mkdir logger fig figure render"""
)
# Helpers that name things (paths, keys, strings) rather than compute them.
NAMING_WORDS = word_set("name names path paths dir file filename key keys repr")
SETUP_WORDS = word_set("setup init build create make register reset configure")
