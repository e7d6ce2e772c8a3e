"""Datasets the training workloads learn: those sklearn ships (no download) and synthetic ones.

Classification datasets return float32 features, int64 labels and, for image data, the image shape.
Regression datasets (REGRESSION: sklearn's diabetes progression, Friedman's #1 function, a sparse linear
model with noise) return float32 targets instead, learnt with a squared error; `info["task"]` says which.
Features and regression targets are standardised (zero mean, unit variance). `label_noise` (classification
only) gives that fraction of the samples another class, drawn uniformly: annotation errors, a task the
network cannot learn below a floor, which a healthy run keeps.
"""
import numpy as np
import torch

CLASSIFICATION = ("digits", "breast_cancer", "wine", "iris", "blobs", "classification", "moons")
REGRESSION = ("diabetes", "friedman1", "regression")
DATASETS = CLASSIFICATION + REGRESSION


def load(name, seed, num_samples=None, label_noise=0.0):
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
    elif name == "diabetes":
        x, y = sk.load_diabetes(return_X_y=True)
    elif name == "friedman1":
        x, y = sk.make_friedman1(n_samples=num_samples or 2000, n_features=12, noise=1.0, random_state=rng)
    elif name == "regression":
        x, y = sk.make_regression(n_samples=num_samples or 2000, n_features=30, n_informative=10, noise=20.0,
                                  random_state=rng)
    else:
        raise ValueError(f"dataset {name!r}: expected one of {', '.join(DATASETS)}")
    x = x.astype(np.float64)
    x = (x - x.mean(axis=0)) / (x.std(axis=0) + 1e-8)
    features = torch.tensor(x, dtype=torch.float32)
    shipped = name in ("digits", "breast_cancer", "wine", "iris", "diabetes")
    info = {"name": f"sklearn_{name}" if shipped else name, "num_samples": len(y),
            "input_shape": list(image_shape or (features.shape[1],))}
    if not 0.0 <= float(label_noise) < 1.0:
        raise ValueError(f"dataset.label_noise {label_noise}: expected a fraction in [0, 1)")
    if name in REGRESSION:
        if label_noise:
            raise ValueError(f"dataset.label_noise: {name!r} is a regression set, it has no labels to flip")
        y = np.asarray(y, dtype=np.float64)
        labels = torch.tensor((y - y.mean()) / (y.std() + 1e-8), dtype=torch.float32)
        info.update({"task": "regression", "num_outputs": 1})
    else:
        y = np.asarray(y, dtype=np.int64)
        classes = int(y.max()) + 1
        if label_noise:
            noisy = rng.choice(len(y), size=int(round(float(label_noise) * len(y))), replace=False)
            y = y.copy()
            y[noisy] = (y[noisy] + rng.randint(1, classes, size=len(noisy))) % classes
            info["label_noise"] = float(label_noise)
        labels = torch.tensor(y, dtype=torch.int64)
        info.update({"task": "classification", "num_classes": classes})
    return features, labels, image_shape, info
