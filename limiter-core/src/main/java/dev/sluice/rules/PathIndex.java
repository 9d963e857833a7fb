package dev.sluice.rules;

import dev.sluice.request.ResourcePattern;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A trie over path segments: literal children, one {@code *} child, and at each node the rules that
 * end there exactly or as a subtree ({@code **}). A lookup walks the request's segments, so its cost
 * grows with the path's depth and the wildcards on the way, not with the number of rules.
 *
 * <p>A lookup runs on every request, so the usual one allocates nothing: it reads the path's
 * segments in place (no substrings), finds a literal child by the segment's hash, and, when no
 * {@code *} branches off the way it walks, answers an array built with the trie (each node knows
 * the rules its path reaches). Only a walk that forks at a {@code *} collects into a new array.
 */
final class PathIndex {

  private static final int[] NONE = new int[0];

  private final Node root = new Node();

  PathIndex(List<Rule> ordered) {
    for (int position = 0; position < ordered.size(); position++) {
      ResourcePattern pattern = ordered.get(position).resource();
      Node node = root;
      for (String segment : pattern.fixedSegments()) {
        if (segment.equals(ResourcePattern.ANY_ONE)) {
          if (node.anyOne == null) {
            node.anyOne = new Node();
          }
          node = node.anyOne;
        } else {
          node = node.literal(segment);
        }
      }
      if (pattern.isSubtree()) {
        node.subtree = append(node.subtree, position);
      } else {
        node.exact = append(node.exact, position);
      }
    }
    root.seal(NONE);
  }

  /**
   * Positions of the rules whose resource matches the path, ascending (method not checked). The
   * array may be shared with other lookups: read it, never write it.
   */
  int[] candidates(String path) {
    Node node = root;
    int length = path.length();
    int start = 0;
    while (true) {
      int end = start;
      while (start < length) { // the next non-empty segment, in place
        end = path.indexOf('/', start);
        if (end < 0) {
          end = length;
        }
        if (end > start) {
          break;
        }
        start = end + 1;
      }
      if (start >= length) {
        return node.reachedExactly; // every segment walked: the rules ending here count too
      }
      if (node.anyOne != null) {
        return forked(path); // two ways on: collect both
      }
      Node next = node.child(path, start, end);
      if (next == null) {
        return node.reached; // the path leaves the trie: the subtrees passed on the way
      }
      node = next;
      start = end + 1;
    }
  }

  /** The general walk, for a path that passes a {@code *}: a new, sorted array. */
  private int[] forked(String path) {
    List<String> segments = ResourcePattern.segments(path);
    Collector out = new Collector();
    walk(root, segments, 0, out);
    int[] found = Arrays.copyOf(out.positions, out.size);
    Arrays.sort(found);
    return found;
  }

  private static void walk(Node node, List<String> segments, int depth, Collector out) {
    out.addAll(node.subtree);
    if (depth == segments.size()) {
      out.addAll(node.exact);
      return;
    }
    String segment = segments.get(depth);
    Node literal = node.child(segment, 0, segment.length());
    if (literal != null) {
      walk(literal, segments, depth + 1, out);
    }
    if (node.anyOne != null) {
      walk(node.anyOne, segments, depth + 1, out);
    }
  }

  private static int[] append(int[] array, int value) {
    int[] grown = Arrays.copyOf(array, array.length + 1);
    grown[array.length] = value;
    return grown;
  }

  /** The hash {@link String#hashCode()} gives {@code text.substring(start, end)}, without it. */
  static int hash(String text, int start, int end) {
    int h = 0;
    for (int i = start; i < end; i++) {
      h = 31 * h + text.charAt(i);
    }
    return h;
  }

  private static final class Node {
    // literal children sorted by the hash of their segment, for a binary search by hash
    private int[] hashes = NONE;
    private String[] names = new String[0];
    private Node[] children = new Node[0];
    Node anyOne;
    int[] exact = NONE;
    int[] subtree = NONE;
    // built by seal: the subtree rules of this node and every node above it; and those plus the
    // rules ending exactly here (both ascending)
    int[] reached = NONE;
    int[] reachedExactly = NONE;

    /** The literal child for {@code segment}, created when missing (building only). */
    Node literal(String segment) {
      Node known = child(segment, 0, segment.length());
      if (known != null) {
        return known;
      }
      int h = segment.hashCode();
      int at = 0;
      while (at < hashes.length && hashes[at] <= h) {
        at++;
      }
      Node created = new Node();
      hashes = insert(hashes, at, h);
      names = insert(names, at, segment);
      children = insert(children, at, created);
      return created;
    }

    /** The literal child for {@code path.substring(start, end)}, or null. */
    Node child(String path, int start, int end) {
      if (hashes.length == 0) {
        return null;
      }
      int h = hash(path, start, end);
      int at = Arrays.binarySearch(hashes, h);
      if (at < 0) {
        return null;
      }
      while (at > 0 && hashes[at - 1] == h) {
        at--;
      }
      int length = end - start;
      for (; at < hashes.length && hashes[at] == h; at++) {
        String name = names[at];
        if (name.length() == length && path.regionMatches(start, name, 0, length)) {
          return children[at];
        }
      }
      return null;
    }

    void seal(int[] above) {
      reached = union(above, subtree);
      reachedExactly = union(reached, exact);
      for (Node child : children) {
        child.seal(reached);
      }
      if (anyOne != null) {
        anyOne.seal(reached);
      }
    }

    private static int[] union(int[] a, int[] b) {
      if (b.length == 0) {
        return a;
      }
      int[] both = Arrays.copyOf(a, a.length + b.length);
      System.arraycopy(b, 0, both, a.length, b.length);
      Arrays.sort(both);
      return both;
    }

    private static int[] insert(int[] array, int at, int value) {
      int[] grown = new int[array.length + 1];
      System.arraycopy(array, 0, grown, 0, at);
      grown[at] = value;
      System.arraycopy(array, at, grown, at + 1, array.length - at);
      return grown;
    }

    private static <T> T[] insert(T[] array, int at, T value) {
      List<T> grown = new ArrayList<>(Arrays.asList(array));
      grown.add(at, value);
      return grown.toArray(Arrays.copyOf(array, 0));
    }
  }

  private static final class Collector {
    int[] positions = new int[8];
    int size;

    void addAll(int[] more) {
      if (more.length == 0) {
        return;
      }
      if (size + more.length > positions.length) {
        positions = Arrays.copyOf(positions, Math.max(positions.length * 2, size + more.length));
      }
      System.arraycopy(more, 0, positions, size, more.length);
      size += more.length;
    }
  }
}
