package dev.fencedlock.examples.inventory;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The shipping service as the example runs it: a JVM of its own, started from the example's own
 * class path with {@link ShippingService} as its main class, and stopped when the run ends (its
 * standard input closed; ended by force if it does not stop within 10 s). Starting returns at once;
 * {@link #uri()} waits until the service answers, so the service starts while the run sets up the
 * lock backend and the inventory database.
 */
final class ShippingProcess implements AutoCloseable {
    private static final long READY_TIMEOUT_MINUTES = 2;

    private final Process process;
    private final CompletableFuture<URI> ready = new CompletableFuture<>();
    private final StringBuffer output = new StringBuffer();

    private ShippingProcess(Process process) {
        this.process = process;
        Thread reader = new Thread(this::readOutput, "shipping-service-output");
        reader.setDaemon(true);
        reader.start();
    }

    /** Starts the service with {@code threads} request threads (and as many database connections). */
    static ShippingProcess start(int threads) throws IOException {
        List<String> command = WorkerProcesses.javaCommand(ShippingService.class.getName());
        command.addAll(List.of("--threads", String.valueOf(threads)));
        return new ShippingProcess(new ProcessBuilder(command)
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start());
    }

    /**
     * The service's base URL, once it answers calls.
     *
     * @throws IllegalStateException if it ended, or did not start within 2 minutes
     */
    URI uri() throws InterruptedException {
        try {
            return ready.get(READY_TIMEOUT_MINUTES, TimeUnit.MINUTES);
        } catch (TimeoutException e) {
            throw new IllegalStateException(
                    "The shipping service did not start within " + READY_TIMEOUT_MINUTES + " minutes: " + output, e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("The shipping service ended before it answered calls: " + output, e);
        }
    }

    private void readOutput() {
        try (BufferedReader in =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                if (line.startsWith(ShippingService.READY_PREFIX)) {
                    ready.complete(URI.create(line.substring(ShippingService.READY_PREFIX.length())));
                } else {
                    output.append(line).append('\n');
                }
            }
        } catch (IOException e) {
            output.append("(output unreadable: ").append(e).append(")\n");
        }
        ready.completeExceptionally(new IllegalStateException("the shipping service ended"));
    }

    @Override
    public void close() throws InterruptedException {
        try {
            process.getOutputStream().close();
        } catch (IOException e) {
            // it ended already
        }
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
    }
}
