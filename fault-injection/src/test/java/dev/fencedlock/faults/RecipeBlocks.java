package dev.fencedlock.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The set-up recipes of docs/which-redis.md, read at test time so that the tests run exactly what
 * the page shows. A recipe is the fenced code block right after a {@code <!-- recipe: name -->}
 * comment. Placeholders are words in angle brackets ({@code <port>}, {@code <master-ip>}); {@link
 * #lines} fails when a placeholder is left unfilled, so a page that gains one is noticed. Immutable.
 */
final class RecipeBlocks {
    private static final Pattern RECIPE =
            Pattern.compile("<!-- recipe: ([\\w.-]+) -->\\R```[\\w]*\\R(.*?)\\R```", Pattern.DOTALL);
    private static final Pattern PLACEHOLDER = Pattern.compile("<[a-z0-9-]+>");

    private final Map<String, String> blocks;

    private RecipeBlocks(Map<String, String> blocks) {
        this.blocks = blocks;
    }

    /** The recipes of docs/which-redis.md, found in the working directory or a parent of it. */
    static RecipeBlocks whichRedis() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.isRegularFile(dir.resolve("docs/which-redis.md"))) {
            dir = dir.getParent();
        }
        if (dir == null) {
            throw new IllegalStateException(
                    "no docs/which-redis.md above " + Path.of("").toAbsolutePath());
        }
        try {
            return parse(Files.readString(dir.resolve("docs/which-redis.md")));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static RecipeBlocks parse(String markdown) {
        Map<String, String> blocks = new LinkedHashMap<>();
        Matcher m = RECIPE.matcher(markdown);
        while (m.find()) {
            if (blocks.put(m.group(1), m.group(2)) != null) {
                throw new IllegalStateException("recipe " + m.group(1) + " appears twice");
            }
        }
        return new RecipeBlocks(blocks);
    }

    /**
     * The lines of recipe {@code name}, each placeholder replaced by its value in {@code values}.
     *
     * @throws IllegalStateException if there is no such recipe or a placeholder has no value
     */
    List<String> lines(String name, Map<String, String> values) {
        String block = blocks.get(name);
        if (block == null) {
            throw new IllegalStateException(
                    "docs/which-redis.md has no recipe " + name + "; it has " + blocks.keySet());
        }
        List<String> lines = new ArrayList<>();
        for (String line : block.split("\\R")) {
            String filled = line;
            for (Map.Entry<String, String> value : values.entrySet()) {
                filled = filled.replace(value.getKey(), value.getValue());
            }
            Matcher left = PLACEHOLDER.matcher(filled);
            if (left.find()) {
                throw new IllegalStateException("recipe " + name + ": no value for " + left.group() + " in " + line);
            }
            lines.add(filled);
        }
        return lines;
    }

    /**
     * {@code base} with each line of {@code overrides} in place of the base line that sets the same
     * thing (the same words but the last).
     *
     * @throws IllegalStateException if an override matches no base line
     */
    static List<String> override(List<String> base, List<String> overrides) {
        List<String> result = new ArrayList<>(base);
        for (String override : overrides) {
            String setting = override.substring(0, override.lastIndexOf(' ') + 1);
            int index = -1;
            for (int i = 0; i < result.size(); i++) {
                if (result.get(i).startsWith(setting)) {
                    index = i;
                }
            }
            if (index < 0) {
                throw new IllegalStateException("no line sets '" + setting.trim() + "' in " + base);
            }
            result.set(index, override);
        }
        return result;
    }
}
