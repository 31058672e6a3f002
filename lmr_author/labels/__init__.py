"""Human three-way labels: the durable store, import/export, and agreement statistics."""
