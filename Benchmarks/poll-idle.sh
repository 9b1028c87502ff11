# Sourced by the side-by-side scripts. With NETLOAD_POLL_IDLE=1 it holds /dev/cpu_dma_latency at 0
# for the rest of the calling shell's life (root only): an idle vCPU then polls instead of
# halting. On this VM (no halt-polling: haltpoll.guest_halt_poll_ns=0) waking a halted vCPU costs
# the waker an interrupt through the hypervisor, and how often a client pays it depends on its
# timing, not only its work: polling took raw AsyncHTTPClient's sequential calls from 93 to 52 µs
# of CPU each (Benchmarks/NOTEBOOK.md §0, "What the VM charges").
if [ "${NETLOAD_POLL_IDLE:-0}" = 1 ]; then
    [ -c /dev/cpu_dma_latency ] || { echo "NETLOAD_POLL_IDLE: no /dev/cpu_dma_latency here" >&2; exit 1; }
    exec 3>/dev/cpu_dma_latency  # the request holds while this descriptor is open
    printf 0 >&3                 # a latency limit of 0 µs: idle vCPUs poll
fi
