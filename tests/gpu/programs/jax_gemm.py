"""A small JAX program for isolate, run with JAX's defaults: XLA preallocates 75 % of the GPU's
memory as one pool, of which the program writes a few MiB. An fp32 GEMM (cuBLAS through XLA) run
a few times; prints a checksum of the result."""
import jax
import jax.numpy as jnp

n = 2048
ka, kb = jax.random.split(jax.random.PRNGKey(0))
a = jax.random.normal(ka, (n, n), dtype=jnp.float32)
b = jax.random.normal(kb, (n, n), dtype=jnp.float32)
matmul = jax.jit(lambda x, y: x @ y)
for _ in range(3):
    c = matmul(a, b).block_until_ready()
print(f"checksum {float(jnp.sum(c.astype(jnp.float64) if jax.config.jax_enable_x64 else c)):.6e}")
