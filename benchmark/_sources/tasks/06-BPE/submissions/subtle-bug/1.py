def merge_pair(pair, vocab):
    """Apply one merge operation to every word of the vocabulary."""
    left, right = pair
    merged_symbol = left + right
    new_vocab = {}
    for symbols, freq in vocab.items():
        out = []
        i = 0
        while i < len(symbols):
            if i + 1 < len(symbols) and symbols[i] == left and symbols[i + 1] == right:
                out.append(merged_symbol)
                i += 2
            else:
                out.append(symbols[i])
                i += 1
        new_vocab[tuple(out)] = freq
    return new_vocab
