"""Task 01-DPO: the DPO preference loss (Training Objectives & Optimization)."""

INFO = {
    "instance_id": 1,
    "paper_name": "Direct Preference Optimization in Closed Form: A Minimal Reproduction",
    "paper_url": "",
    "year": 2026,
    "repo_url": "",
    "repo_folder_name": "dpo-numpy",
    "implementations": [
        {
            "instruction": (
                "Implement the `preference_loss` function in dpo/losses.py based on the DPO "
                "loss of Section 2 of paper.pdf (Eq. 2-4). It receives the summed log "
                "probabilities of the chosen and rejected responses under the policy and the "
                "reference model, and returns a tuple (losses, chosen_rewards, "
                "rejected_rewards): one loss per example, with conservative label smoothing "
                "epsilon = label_smoothing, and the implicit rewards of Eq. 2."
            ),
            "category": "Training Objectives & Optimization",
            "goal_file": "dpo/losses.py",
            "goal_function": "preference_loss",
            "class_name": "",
            "retrieval_context": ["dpo/train.py"],
            "unit_test_file": "unit_test/unit_test_1.py",
        }
    ],
}

PAPER = {
    "title": "Direct Preference Optimization in Closed Form: A Minimal Reproduction",
    "authors": "lmr-author sample benchmark",
    "abstract": (
        "Reinforcement learning from human feedback fits a reward model and then optimises "
        "a policy against it. Direct Preference Optimization (DPO) removes the reward model: "
        "the optimal KL-constrained policy defines an implicit reward, and substituting it "
        "into the Bradley-Terry model gives a classification loss on preference pairs. We "
        "restate the loss, its conservative variant with noisy labels, and reproduce it in "
        "NumPy."
    ),
    "sections": [
        (
            "1 Preference model",
            """
            We are given a dataset of triples (x, y_w, y_l): a prompt x, a preferred
            (chosen) response y_w and a dispreferred (rejected) response y_l. The
            Bradley-Terry model states that the probability that y_w is preferred is a
            logistic function of the reward difference:

            $$ p(y_w ≻ y_l | x) = σ( r(x, y_w) − r(x, y_l) ),   σ(z) = 1 / (1 + exp(−z))   (1)
            """,
        ),
        (
            "2 The DPO objective",
            """
            For a reference policy π_ref and a KL penalty of strength β, the optimal policy
            π_θ satisfies r(x, y) = β log π_θ(y | x) / π_ref(y | x) + β log Z(x). The
            partition function Z(x) cancels in Eq. 1, so each response has the implicit
            reward

            $$ r̂(x, y) = β ( log π_θ(y | x) − log π_ref(y | x) ).   (2)

            The log probabilities log π(y | x) are sums of token log probabilities over
            the response. The DPO loss of one example is the negative log likelihood of
            the observed preference under Eq. 1 with the rewards of Eq. 2:

            $$ L_DPO = − log σ( β [ (log π_θ(y_w|x) − log π_θ(y_l|x)) − (log π_ref(y_w|x) − log π_ref(y_l|x)) ] ).   (3)

            Let h denote the bracketed difference of log-ratios in Eq. 3. When a fraction
            ε of the preference labels may be flipped, the conservative DPO loss takes the
            expectation over the noisy label:

            $$ L_cDPO = − (1 − ε) log σ(β h) − ε log σ(−β h).   (4)

            With ε = 0, Eq. 4 reduces to Eq. 3. The loss is kept per example; the trainer
            averages it over the batch. The implicit rewards of the chosen and rejected
            responses (Eq. 2) are logged alongside the loss to monitor training; their
            difference is the reward margin.
            """,
        ),
        (
            "3 Implementation notes",
            """
            log σ(z) is computed as −log(1 + exp(−z)) in a numerically stable form
            (logaddexp), since margins of several hundred nats occur when β is large.
            Inputs are arrays of shape (batch,). The toy experiment in dpo/train.py fits a
            softmax policy over six responses to four preference pairs and the mean loss
            decreases from log 2 as expected.
            """,
        ),
    ],
}
