// The claim filter of results/report.html: hides claim cards and rows of the all-claims table whose status group is
// not chosen, keeps each section's claim count and "none shown" note in step, and shows every claim again when a
// link points to one the filter hides.
function applyFilter(shown) {
  document.querySelectorAll('.claim').forEach(function (card) {
    card.style.display = shown.indexOf(card.dataset.group) < 0 ? 'none' : '';
  });
  document.querySelectorAll('#all-claims-table tr[data-group]').forEach(function (row) {
    row.style.display = shown.indexOf(row.dataset.group) < 0 ? 'none' : '';
  });
  document.querySelectorAll('section.output').forEach(function (section) {
    var cards = section.querySelectorAll('.claim');
    var visible = Array.prototype.filter.call(cards, function (c) { return c.style.display !== 'none'; }).length;
    var count = section.querySelector('.claim-count');
    if (count) { count.textContent = visible; }
    var total = section.querySelector('.claim-total');
    if (total) { total.textContent = visible < cards.length ? 'of ' + cards.length + ' shown' : ''; }
    var none = section.querySelector('.none-shown');
    if (none) { none.hidden = !(cards.length > 0 && visible === 0); }
  });
}
document.querySelectorAll('input[name=claim-filter]').forEach(function (box) {
  box.addEventListener('change', function () { applyFilter(box.value.split(' ')); });
});
// a link to a claim the filter hides shows every claim first, so that it lands on the claim
document.addEventListener('click', function (event) {
  var link = event.target.closest('a[href^="#"]');
  if (!link) { return; }
  var target = document.getElementById(decodeURIComponent(link.getAttribute('href').slice(1)));
  if (!target) { return; }
  var row = target.closest('tr[data-group], .claim');
  if (row && row.style.display === 'none') {
    var all = document.querySelector('input[name=claim-filter]');
    all.checked = true;
    applyFilter(all.value.split(' '));
  }
  var details = target.closest('details');
  if (details) { details.open = true; }
});
