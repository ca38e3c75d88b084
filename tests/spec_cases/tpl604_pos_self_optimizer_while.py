# codes: TPL604
import torch


class Trainer:
    def fit(self):
        while self.step < self.max_steps:
            batch = next(self.it)
            loss = self.model(batch).mean()
            loss.backward()
            self.optimizer.step()
            self.optimizer.zero_grad(  # expect: TPL604
                set_to_none=False,
            )
            self.step += 1
