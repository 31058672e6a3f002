"""bpe-subwords: byte-pair encoding merges for open-vocabulary segmentation."""
