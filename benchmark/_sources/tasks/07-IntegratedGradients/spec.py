"""Task 07-IntegratedGradients: path attributions (Interpretability & Explainability)."""

INFO = {
    "instance_id": 7,
    "paper_name": "Axiomatic Attribution for Text Classifiers with Integrated Gradients",
    "paper_url": "",
    "year": 2026,
    "repo_url": "",
    "repo_folder_name": "attribution-toolkit",
    "implementations": [
        {
            "instruction": (
                "Implement the `integrated_gradients` function in attribution/methods.py "
                "following Section 2 of paper.pdf (Eq. 2-3): approximate the path integral "
                "of the gradients from the baseline (zeros when None) to x with the right "
                "Riemann sum of `steps` points, using `model.gradient` on a (n, dim) batch, "
                "and return one attribution per input feature."
            ),
            "category": "Interpretability & Explainability",
            "goal_file": "attribution/methods.py",
            "goal_function": "integrated_gradients",
            "class_name": "",
            "retrieval_context": ["attribution/model.py", "attribution/explain.py"],
            "unit_test_file": "unit_test/unit_test_1.py",
        }
    ],
}

PAPER = {
    "title": "Axiomatic Attribution for Text Classifiers with Integrated Gradients",
    "authors": "lmr-author sample benchmark",
    "abstract": (
        "Which words does a classifier's decision rest on? Gradients at the input are "
        "cheap but violate sensitivity: a feature that changes the output can receive zero "
        "gradient where the model saturates. Integrated gradients accumulate the gradient "
        "along a straight path from a baseline input and satisfy completeness: the "
        "attributions sum to the change in output. We restate the method and its "
        "discretisation and apply it to a toy sentiment classifier."
    ),
    "sections": [
        (
            "1 Setting",
            """
            Let F : R^d → [0, 1] be a differentiable model (here a one-hidden-layer tanh
            network with a sigmoid output over concatenated word embeddings), x ∈ R^d the
            input to explain and x' a baseline input carrying no signal, by default the
            all-zero vector. Gradient saliency scores feature i by ∂F(x)/∂x_i alone.
            """,
        ),
        (
            "2 Integrated gradients",
            """
            The integrated gradient of feature i is the path integral of the gradient
            along the straight line from x' to x:

            $$ IG_i(x) = (x_i − x'_i) · ∫_0^1 ∂F( x' + α (x − x') ) / ∂x_i dα.   (1)

            By the fundamental theorem of calculus for path integrals, the attributions
            are complete: Σ_i IG_i(x) = F(x) − F(x'). In practice the integral is
            approximated by a right Riemann sum with m steps, evaluating the gradient at
            the m points α_k = k/m, k = 1, ..., m (the baseline itself, α = 0, is not
            evaluated; the input x, α = 1, is):

            $$ IG_i(x) ≈ (x_i − x'_i) · (1/m) Σ_{k=1..m} ∂F( x' + (k/m)(x − x') ) / ∂x_i.   (2)

            The m gradient evaluations are independent and may be computed as one batch:

            $$ G = ∇F( [x' + α_1 (x − x'); ...; x' + α_m (x − x')] ) ∈ R^{m×d},   IG = (x − x') ⊙ mean_k G_k.   (3)
            """,
        ),
        (
            "3 Experiments",
            """
            With m = 200 on the toy sentiment model of attribution/explain.py the summed
            attributions match F(x) − F(x') to three decimals, while gradient times
            input does not. Per-word scores are the sums of the attributions of the
            word's embedding dimensions.
            """,
        ),
    ],
}
