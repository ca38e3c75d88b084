"""``python -m runtime_guard [OPTIONS] script.py [ARGS...]``: run a script with the guard installed
first, without editing it (see runtime_guard/runner.py)."""

if __name__ == "__main__":
    from runtime_guard.runner import main

    main()
