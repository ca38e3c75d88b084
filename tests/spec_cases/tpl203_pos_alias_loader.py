# codes: TPL203
import torch.utils.data as tud

weights = compute_weights(ds)
sampler = tud.WeightedRandomSampler(weights, num_samples=len(ds))
loader = tud.DataLoader(ds, sampler=sampler, shuffle=True, batch_size=32)  # expect: TPL203
