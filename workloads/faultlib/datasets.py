"""Datasets the training workloads learn: those sklearn ships (no download) and synthetic ones.

Every dataset is standardised (zero mean, unit variance per feature) and returned as float32 features, int64
labels and, for image data, the image shape.
"""
import numpy as np
import torch

DATASETS = ("digits", "breast_cancer", "wine", "iris", "blobs", "classification", "moons")


def load(name, seed, num_samples=None):
    from sklearn import datasets as sk

    rng = np.random.RandomState(seed)
    image_shape = None
    if name == "digits":
        x, y = sk.load_digits(return_X_y=True)
        image_shape = (1, 8, 8)
    elif name == "breast_cancer":
        x, y = sk.load_breast_cancer(return_X_y=True)
    elif name == "wine":
        x, y = sk.load_wine(return_X_y=True)
    elif name == "iris":
        x, y = sk.load_iris(return_X_y=True)
    elif name == "blobs":
        x, y = sk.make_blobs(n_samples=num_samples or 1500, n_features=32, centers=8, cluster_std=4.0,
                             random_state=rng)
    elif name == "classification":
        x, y = sk.make_classification(n_samples=num_samples or 2000, n_features=40, n_informative=16,
                                      n_redundant=8, n_classes=6, n_clusters_per_class=2, flip_y=0.03,
                                      random_state=rng)
    elif name == "moons":
        x2, y = sk.make_moons(n_samples=num_samples or 1500, noise=0.25, random_state=rng)
        # Two informative dimensions embedded with noise dimensions, so the network has something to learn.
        x = np.concatenate([x2, rng.normal(size=(len(x2), 14)) * 0.5], axis=1)
    else:
        raise ValueError(f"dataset {name!r}: expected one of {', '.join(DATASETS)}")
    x = x.astype(np.float64)
    x = (x - x.mean(axis=0)) / (x.std(axis=0) + 1e-8)
    features = torch.tensor(x, dtype=torch.float32)
    labels = torch.tensor(y, dtype=torch.int64)
    info = {"name": name if name not in ("digits", "breast_cancer", "wine", "iris") else f"sklearn_{name}",
            "num_samples": len(labels), "input_shape": list(image_shape or (features.shape[1],)),
            "num_classes": int(labels.max()) + 1}
    return features, labels, image_shape, info
