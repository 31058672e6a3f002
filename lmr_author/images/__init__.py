"""Task images: built from a task's Dockerfile, tagged by content, moved between machines.

``task_images`` (the build plan, hash-tagged task images, a node's image found by id),
``from_lines`` (FROM rewriting for ``--base-image``), ``certificates`` (builds behind a
TLS-inspecting proxy), ``base_image`` (pulled, else built offline), ``archives`` (images as
``<id>.tar`` files) and ``registry`` (pushed to and pulled by id from a registry). The
sandbox (`lmr_author.sandbox`) runs candidates in them; both talk to the engine through
`lmr_author.runtime`.
"""
