"""dpo-numpy: Direct Preference Optimization in plain NumPy."""
