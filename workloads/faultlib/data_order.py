"""Orders in which a data loader yields the samples of an epoch.

`fresh_shuffle` (a new random permutation every epoch) is the healthy order, and so is `same_permutation`
(a permutation drawn once and read the same way every epoch: shuffle=False over data that was shuffled when
it was written): every batch is still a random sample, only the same one each epoch. Every other order is
the `unshuffled_data` fault as it happens in real code: a loader built with shuffle=False over data stored
sorted (by label, by a feature, in class blocks), or shards of one class each whose order alone is shuffled
every epoch (`class_shards`: a sharded dataset written class by class, read with a shard-level shuffle),
which repeats nothing from one epoch to the next.
Regression targets (float labels) are sorted by value, and their "classes" are TARGET_BINS bins of equal
counts (a table exported in price bands, a shard per range of the target).
"""
import torch

# Every order, with its kind as the training graph's hidden `order_kind` names it: fresh, reused (random
# batches, the same each epoch), repeating (batches of their own kind that come back every epoch) or
# never_repeating (alike neighbours that never come back one epoch later).
KIND = {"fresh_shuffle": "fresh", "sorted_by_label": "repeating", "sorted_by_feature": "repeating",
        "class_blocks": "repeating", "same_permutation": "reused", "class_shards": "never_repeating"}
ORDERS = tuple(KIND)
TARGET_BINS = 8


def classes_of(labels):
    """Integer class ids: the labels of a classification set, equal-count bins of a regression target."""
    if not labels.dtype.is_floating_point:
        return labels
    rank = torch.empty_like(labels, dtype=torch.int64)
    rank[torch.sort(labels, stable=True).indices] = torch.arange(len(labels))
    return rank * TARGET_BINS // len(labels)


def informative_column(features, labels):
    """Index of the feature whose per-class means vary most (between-class variance over total variance)."""
    classes = torch.unique(labels)
    means = torch.stack([features[labels == c].mean(dim=0) for c in classes])
    spread = means.var(dim=0) / (features.var(dim=0) + 1e-12)
    return int(torch.argmax(spread))


class EpochOrder(torch.utils.data.Sampler):
    """A torch Sampler: iterating it yields the indices of one epoch; each new iteration is a new epoch."""

    def __init__(self, order, labels, features, seed, block=None):
        if order not in ORDERS:
            raise ValueError(f"data order {order!r}: expected one of {', '.join(ORDERS)}")
        self.order = order
        self.n = len(labels)
        self.gen = torch.Generator().manual_seed(seed)
        self.labels = labels
        self.classes = classes_of(labels)
        self.features = features
        self.block = block
        self._fixed = None

    def __len__(self):
        return self.n

    def _stored_order(self):
        if self.order == "sorted_by_label":
            # A stable sort keeps the within-class order: data exported class by class (or by target value).
            return torch.sort(self.labels, stable=True).indices
        if self.order == "sorted_by_feature":
            # Sorted on a column of the data (a file exported sorted by a size, date or score column). The
            # column is the one whose class means spread most (the ANOVA between-class variance): a sort
            # key that carries label information, as real sort keys usually do. A column unrelated to
            # the label would give an order as good as random, which is no fault.
            return torch.argsort(self.features[:, informative_column(self.features, self.classes)])
        if self.order == "class_blocks":
            # Blocks of `block` samples of one class, classes taking turns (shards written per class).
            return torch.cat(self._class_blocks())
        raise AssertionError(self.order)

    def _class_blocks(self):
        """Blocks of `block` samples of one class, classes taking turns, in stored order."""
        by_class = [torch.nonzero(self.classes == c).flatten() for c in torch.unique(self.classes)]
        block = self.block or max(8, self.n // (4 * len(by_class)))
        out, pos, taken = [], [0] * len(by_class), 0
        while taken < self.n:
            for c, idx in enumerate(by_class):
                take = idx[pos[c]:pos[c] + block]
                pos[c] += block
                if len(take):
                    out.append(take)
                    taken += len(take)
        return out

    def __iter__(self):
        if self.order == "fresh_shuffle":
            perm = torch.randperm(self.n, generator=self.gen)
        elif self.order == "class_shards":
            if self._fixed is None:
                self._fixed = self._class_blocks()
            shards = self._fixed
            perm = torch.cat([shards[i] for i in torch.randperm(len(shards), generator=self.gen).tolist()])
        elif self.order == "same_permutation":
            if self._fixed is None:
                self._fixed = torch.randperm(self.n, generator=self.gen)
            perm = self._fixed
        else:
            if self._fixed is None:
                self._fixed = self._stored_order()
            perm = self._fixed
        return iter(perm.tolist())
