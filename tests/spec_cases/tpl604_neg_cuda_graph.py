# codes: TPL604
import torch

static_x, static_y = next(iter(loader))
stream = torch.cuda.Stream()
with torch.cuda.stream(stream):
    for _ in range(3):                                    # warm-up on a side stream
        optimizer.zero_grad(set_to_none=False)
        criterion(model(static_x), static_y).backward()
        optimizer.step()
graph = torch.cuda.CUDAGraph()
optimizer.zero_grad(set_to_none=False)
with torch.cuda.graph(graph):
    static_loss = criterion(model(static_x), static_y)
    static_loss.backward()
    optimizer.step()
for x, y in loader:
    static_x.copy_(x)
    static_y.copy_(y)
    graph.replay()
