"""Items of a list a function starts empty and only appends to keep the kinds of what was appended
(the lead, 2026-11-26, from holdout16's DiGress: once ``src/`` read as a package, its molecule
builder was reached from a loop that hands it host copies)."""

from __future__ import annotations

from pathlib import Path

from _diagnostics import ITEM_SYNC as SYNC
from _project_files import findings_without_col, write


DIGRESS_LIKE = {
    "setup.py": "",
    "src/__init__.py": "",
    "src/analysis/__init__.py": "",
    "src/analysis/molecules.py": """
        import torch


        def build_molecule(atom_types, edge_types, atom_decoder):
            atoms = []
            for atom in atom_types:
                print(atom_decoder, atom.item())
            return atoms
        """,
    "src/datasets/__init__.py": "",
    "src/datasets/qm9.py": """
        import torch
        from src.analysis.molecules import build_molecule


        def smiles(train_dataloader, atom_decoder):
            found = []
            for i, data in enumerate(train_dataloader):
                X, E = data.X.cuda(), data.E.cuda()
                molecule_list = []
                for k in range(X.size(0)):
                    molecule_list.append([X[k].cpu(), E[k].cpu()])
                for l, molecule in enumerate(molecule_list):
                    found.append(build_molecule(molecule[0], molecule[1], atom_decoder))
            return found
        """,
}


def _findings(root: Path):
    return findings_without_col(root, "src/analysis/molecules.py")


def test_host_copies_appended_to_a_list_reach_the_callee_as_host_tensors(tmp_path):
    write(tmp_path, DIGRESS_LIKE)
    assert _findings(tmp_path) == []


def test_device_tensors_appended_reach_it_on_the_device(tmp_path):
    files = dict(DIGRESS_LIKE)
    files["src/datasets/qm9.py"] = files["src/datasets/qm9.py"].replace("[X[k].cpu(), E[k].cpu()]", "[X[k], E[k]]")
    write(tmp_path, files)
    assert _findings(tmp_path) == [("TPL102", 7, SYNC + " (called every step from src/datasets/qm9.py:13)")]
