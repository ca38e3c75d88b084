# codes: TPL103
# rules.md "A step body" (2026-11-24, after this case was first written as a positive one): the rules
# of a step loop body apply unchanged in a step body, and "the interval `if` is the remedy" there;
# so an interval frees the cache once per period in a step loop too (the lead's reading R9).
import torch

for step, batch in enumerate(loader):
    loss = model(**batch).loss
    loss.backward()
    optimizer.step()
    if step % 100 == 0:
        torch.cuda.empty_cache()
