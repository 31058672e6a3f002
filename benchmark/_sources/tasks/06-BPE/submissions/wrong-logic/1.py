def merge_pair(pair, vocab):
    """Join adjacent symbols whenever their concatenated text equals the merged symbol."""
    target = pair[0] + pair[1]
    new_vocab = {}
    for symbols, freq in vocab.items():
        out = list(symbols)
        i = 0
        while i < len(out) - 1:
            if out[i] + out[i + 1] == target:
                out[i : i + 2] = [target]
            i += 1
        key = tuple(out)
        new_vocab[key] = new_vocab.get(key, 0) + freq
    return new_vocab
