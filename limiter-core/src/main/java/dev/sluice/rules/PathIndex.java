package dev.sluice.rules;

import dev.sluice.request.ResourcePattern;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A trie over path segments: literal children, one {@code *} child, and at each node the rules that
 * end there exactly or as a subtree ({@code **}). A lookup walks the request's segments, so its cost
 * grows with the path's depth and the wildcards on the way, not with the number of rules.
 */
final class PathIndex {

  private final Node root = new Node();

  PathIndex(List<Rule> ordered) {
    for (int position = 0; position < ordered.size(); position++) {
      ResourcePattern pattern = ordered.get(position).resource();
      Node node = root;
      for (String segment : pattern.fixedSegments()) {
        node = segment.equals(ResourcePattern.ANY_ONE)
            ? (node.anyOne == null ? node.anyOne = new Node() : node.anyOne)
            : node.literal.computeIfAbsent(segment, s -> new Node());
      }
      if (pattern.isSubtree()) {
        node.subtree = append(node.subtree, position);
      } else {
        node.exact = append(node.exact, position);
      }
    }
  }

  /** Positions of the rules whose resource matches the path (unordered; method not checked). */
  int[] candidates(List<String> segments) {
    Collector out = new Collector();
    walk(root, segments, 0, out);
    return java.util.Arrays.copyOf(out.positions, out.size);
  }

  private static void walk(Node node, List<String> segments, int depth, Collector out) {
    out.addAll(node.subtree);
    if (depth == segments.size()) {
      out.addAll(node.exact);
      return;
    }
    Node literal = node.literal.get(segments.get(depth));
    if (literal != null) {
      walk(literal, segments, depth + 1, out);
    }
    if (node.anyOne != null) {
      walk(node.anyOne, segments, depth + 1, out);
    }
  }

  private static int[] append(int[] array, int value) {
    int[] grown = java.util.Arrays.copyOf(array, array.length + 1);
    grown[array.length] = value;
    return grown;
  }

  private static final class Node {
    final Map<String, Node> literal = new HashMap<>(4);
    Node anyOne;
    int[] exact = new int[0];
    int[] subtree = new int[0];
  }

  private static final class Collector {
    int[] positions = new int[8];
    int size;

    void addAll(int[] more) {
      if (more.length == 0) {
        return;
      }
      if (size + more.length > positions.length) {
        positions = java.util.Arrays.copyOf(positions, Math.max(positions.length * 2, size + more.length));
      }
      System.arraycopy(more, 0, positions, size, more.length);
      size += more.length;
    }
  }
}
