"""Lengths a project module packs (pytorch_neural_crf, holdout70): the model's ``forward`` hands
``word_seq_lens.cpu()`` to ``self.encoder``, a project LSTM encoder whose ``forward`` sorts the
lengths and hands them to ``pack_padded_sequence``, which requires them on the host (rules.md "A step
body": an argument torch itself requires on the host; R3 across the call)."""

from __future__ import annotations

from _diagnostics import SYNC_TEMPLATE as SYNC
from _project_files import findings, write


ENCODER = """
    import torch
    from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence


    class BiLSTMEncoder(torch.nn.Module):
        def __init__(self, size):
            super().__init__()
            self.lstm = torch.nn.LSTM(size, size, batch_first=True)

        def forward(self, word_rep, word_seq_lens):
            sorted_seq_len, order = word_seq_lens.sort(0, descending=True)
            packed = pack_padded_sequence(word_rep[order], {lengths}, batch_first=True)
            out, _ = self.lstm(packed)
            return pad_packed_sequence(out, batch_first=True)[0]
    """
MODEL = """
    import torch

    from encoder import BiLSTMEncoder


    class Tagger(torch.nn.Module):
        def __init__(self, size):
            super().__init__()
            self.encoder = BiLSTMEncoder(size)

        def forward(self, word_rep, word_seq_lens):
            return self.encoder(word_rep, word_seq_lens.cpu())


    def train(loader):
        model = Tagger(8).cuda()
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        for words, lengths, labels in loader:
            loss = model(words.cuda(), lengths.cuda()).sum()
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
    """


def test_lengths_handed_to_a_module_that_packs_them_are_host_needed(tmp_path):
    write(tmp_path, {"setup.py": "", "encoder.py": ENCODER.replace("{lengths}", "sorted_seq_len.cpu()"),
                     "model.py": MODEL})
    assert findings(tmp_path, "model.py") == []


def test_lengths_handed_to_a_module_that_only_counts_them_are_a_sync(tmp_path):
    write(tmp_path, {"setup.py": "", "encoder.py": ENCODER.replace("{lengths}", "word_rep.new_full((4,), 3).cpu()"),
                     "model.py": MODEL})
    assert findings(tmp_path, "model.py") == [
        ("TPL102", 12, 38, SYNC.format(what="`.cpu()`") + " (called every step from model.py:19)")]
