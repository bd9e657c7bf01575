package dev.fencedlock.apirules;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * What {@code docs/api.md} declares: the public types (every fully qualified {@code dev.fencedlock}
 * type name written in backticks) and the internal packages shared with friend modules (the rows of
 * its table whose first cell is an internal package, the second the friends' artifactIds, comma
 * separated).
 */
final class ApiDocument {

    private static final Pattern TYPE =
            Pattern.compile("`(dev\\.fencedlock(?:\\.[a-z][a-z0-9]*)*\\.[A-Z][A-Za-z0-9]*)`");
    private static final Pattern FRIEND_ROW = Pattern.compile(
            "^\\|\\s*`(dev\\.fencedlock[a-z0-9.]*\\.internal[a-z0-9.]*)`\\s*\\|\\s*([^|]+)\\|", Pattern.MULTILINE);

    private final Path path;
    private final Set<String> types;
    private final Map<String, Set<String>> friendsByPackage;

    private ApiDocument(Path path, String text) {
        this.path = path;
        this.types = new LinkedHashSet<>();
        Matcher type = TYPE.matcher(text);
        while (type.find()) {
            types.add(type.group(1));
        }
        this.friendsByPackage = new LinkedHashMap<>();
        Matcher row = FRIEND_ROW.matcher(text);
        while (row.find()) {
            Set<String> friends = Arrays.stream(row.group(2).split(","))
                    .map(friend -> friend.replace("`", "").trim())
                    .filter(friend -> !friend.isEmpty())
                    .collect(Collectors.toCollection(LinkedHashSet::new));
            friendsByPackage.put(row.group(1), friends);
        }
    }

    /** Reads {@code docs/api.md} of the project this module is built in. */
    static ApiDocument read() {
        for (Path candidate : List.of(Path.of("docs", "api.md"), Path.of("..", "docs", "api.md"))) {
            if (Files.isRegularFile(candidate)) {
                try {
                    return new ApiDocument(candidate, Files.readString(candidate, StandardCharsets.UTF_8));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        }
        throw new IllegalStateException(
                "docs/api.md not found from " + Path.of("").toAbsolutePath());
    }

    Path path() {
        return path;
    }

    Set<String> types() {
        return types;
    }

    Map<String, Set<String>> friendsByPackage() {
        return friendsByPackage;
    }

    /** The modules allowed to read {@code internalPackage} besides its own; empty when it is not shared. */
    Set<String> friendsOf(String internalPackage) {
        return friendsByPackage.getOrDefault(internalPackage, Set.of());
    }
}
