"""simcse-lite: contrastive sentence embeddings with in-batch negatives."""
