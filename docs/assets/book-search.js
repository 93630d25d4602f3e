/* The book's full-text search (docs/book.py writes book-search-index.js, the text of every page).
   On every page: Enter in Doxygen's search box opens book_search.html with what was typed.
   On book_search.html: the sections that contain every word typed, chapters first. Works from a
   copied folder (file://): the index is a script, not a fetched file. */
(function () {
  'use strict';

  document.addEventListener('keydown', function (event) {
    var field = event.target;
    if (event.key !== 'Enter' || !field || field.id !== 'MSearchField') return;
    var query = field.value.trim();
    if (!query) return;
    event.preventDefault();
    event.stopPropagation();
    window.location.href = 'book_search.html?q=' + encodeURIComponent(query);
  }, true);

  function escapeHtml(text) {
    return text.replace(/[&<>"]/g, function (c) {
      return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c];
    });
  }

  function count(haystack, word) {
    var n = 0, i = haystack.indexOf(word);
    while (i >= 0 && n < 50) { n++; i = haystack.indexOf(word, i + word.length); }
    return n;
  }

  function excerpt(text, words) {
    var lower = text.toLowerCase(), at = -1;
    for (var w = 0; w < words.length && at < 0; w++) at = lower.indexOf(words[w]);
    if (at < 0) at = 0;
    var start = Math.max(0, at - 110), end = Math.min(text.length, at + 190);
    while (start > 0 && text[start - 1] !== ' ') start--;
    var piece = escapeHtml(text.slice(start, end));
    words.forEach(function (word) {
      var pattern = new RegExp('(' + escapeHtml(word).replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + ')', 'gi');
      piece = piece.replace(pattern, '<mark>$1</mark>');
    });
    return (start > 0 ? '\u2026 ' : '') + piece + (end < text.length ? ' \u2026' : '');
  }

  function search(query) {
    var words = query.toLowerCase().split(/\s+/).filter(function (w) { return w.length > 0; });
    var hits = [];
    if (!words.length) return hits;
    (window.TFM_BOOK_INDEX || []).forEach(function (page) {
      var title = page.t.toLowerCase();
      page.s.forEach(function (section) {
        var heading = section.h.toLowerCase(), body = section.x.toLowerCase();
        var score = 0;
        for (var i = 0; i < words.length; i++) {
          var inBody = count(body, words[i]), inHeading = count(heading, words[i]);
          if (!inBody && !inHeading) return;
          score += Math.min(inBody, 10) + 8 * inHeading + (title.indexOf(words[i]) >= 0 ? 4 : 0);
        }
        if (page.k === 'chapter') score += 6;
        else if (page.k === 'page') score += 3;
        hits.push({ page: page, section: section, score: score });
      });
    });
    // The reader's pages (chapters, projects, appendix) before the code's, then by score.
    function reader(hit) { return hit.page.k === 'code' ? 0 : 1; }
    hits.sort(function (a, b) { return reader(b) - reader(a) || b.score - a.score; });
    return hits;
  }

  function show(query) {
    var results = document.getElementById('tfm-search-results');
    var summary = document.getElementById('tfm-search-summary');
    var hits = search(query), words = query.toLowerCase().split(/\s+/).filter(Boolean);
    var pages = {};
    hits.forEach(function (h) { pages[h.page.p] = true; });
    summary.textContent = !query.trim() ? '' : hits.length === 0
      ? 'Nothing found for \u201c' + query + '\u201d.'
      : hits.length + ' section' + (hits.length === 1 ? '' : 's') + ' on ' + Object.keys(pages).length +
        ' page' + (Object.keys(pages).length === 1 ? '' : 's') + ' contain' +
        (hits.length === 1 ? 's' : '') + ' \u201c' + query + '\u201d.';
    results.innerHTML = hits.slice(0, 100).map(function (h) {
      var href = h.page.p + (h.section.a ? '#' + h.section.a : '');
      var name = h.section.h || h.page.t;
      return '<div class="tfm-hit"><a class="tfm-hit-title" href="' + href + '">' + escapeHtml(name) +
        '</a><span class="tfm-hit-page">' + (h.section.h ? escapeHtml(h.page.t) : '') + '</span>' +
        '<div class="tfm-hit-text">' + excerpt(h.section.x || h.section.h, words) + '</div></div>';
    }).join('');
  }

  function init() {
    var input = document.getElementById('tfm-search-input');
    if (!input) return;
    var match = /[?&]q=([^&]*)/.exec(window.location.search);
    if (match) input.value = decodeURIComponent(match[1].replace(/\+/g, ' '));
    var timer = null;
    input.addEventListener('input', function () {
      clearTimeout(timer);
      timer = setTimeout(function () { show(input.value); }, 120);
    });
    show(input.value);
    input.focus();
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', init);
  else init();
})();
