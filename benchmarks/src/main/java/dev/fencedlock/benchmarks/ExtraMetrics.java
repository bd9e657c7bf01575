package dev.fencedlock.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Appends metrics that JMH's result file has no place for (handoff percentiles, heap per lease) to
 * {@code extra.jsonl} in {@link BenchEnv#outDir()}, one JSON object per line and fork, tagged with
 * the round so that {@code report.py} can pair them with the JMH results of the same round. The
 * line is also printed, so a console log alone shows the numbers.
 */
public final class ExtraMetrics {
    public static final String FILE = "extra.jsonl";

    private ExtraMetrics() {}

    /**
     * @param benchmark the name {@code report.py} looks the metrics up by
     * @param metrics numeric values, e.g. {@code p50_us}
     */
    public static synchronized void write(String benchmark, Map<String, ? extends Number> metrics) {
        String values = metrics.entrySet().stream()
                .map(e -> quote(e.getKey()) + ":" + format(e.getValue()))
                .collect(Collectors.joining(","));
        String line = "{" + quote("benchmark") + ":" + quote(benchmark) + "," + quote("round") + ":" + BenchEnv.round()
                + "," + values + "}";
        System.out.println("[extra] " + line);
        Path file = BenchEnv.outDir().resolve(FILE);
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(
                    file, line + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException("could not append to " + file, e);
        }
    }

    private static String format(Number value) {
        if (value instanceof Double || value instanceof Float) {
            return String.format(Locale.ROOT, "%.3f", value.doubleValue());
        }
        return value.toString();
    }

    private static String quote(String text) {
        return '"' + text.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
    }
}
