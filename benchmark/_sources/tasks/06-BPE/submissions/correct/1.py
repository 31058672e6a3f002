def merge_pair(pair, vocab):
    """Merge every non-overlapping occurrence of ``pair``, left to right, in every word."""
    merged = pair[0] + pair[1]
    result = Counter()
    for symbols, freq in vocab.items():
        out = []
        skip = False
        for position, symbol in enumerate(symbols):
            if skip:
                skip = False
                continue
            nxt = symbols[position + 1] if position + 1 < len(symbols) else None
            if (symbol, nxt) == tuple(pair):
                out.append(merged)
                skip = True
            else:
                out.append(symbol)
        result[tuple(out)] += freq
    return dict(result)
