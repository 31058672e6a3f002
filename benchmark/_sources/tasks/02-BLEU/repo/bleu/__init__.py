"""bleu-lite: corpus BLEU from clipped n-gram precisions."""
