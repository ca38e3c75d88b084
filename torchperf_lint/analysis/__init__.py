"""The facts the rules read: parsing, names, step loops and step bodies, value flow, the project index."""
